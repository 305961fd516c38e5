"""Creates masked-LM / next-sentence pretraining TFRecords from text (google-research/bert's flags).

    python -m keras_bert.cli.create_pretraining_data \
        --input_file='corpus/*.txt' --output_file=out/pretrain.tfrecord --num_output_shards=4 \
        --vocab_file=vocab.txt --do_lower_case --max_seq_length=128 \
        --max_predictions_per_seq=20 --masked_lm_prob=0.15 --dupe_factor=5

Input: plain text, one sentence per line, a blank line between documents (make it from raw
books with `python -m keras_bert.cli.prepare_pretraining_text`). Output: TFRecords with
google-research/bert's features, readable by its run_pretraining.py and by ours.

`--pack_sequences` writes full-length rows of concatenated documents instead of sentence
pairs: no padding and no next-sentence labels (masked LM only; `run_pretraining
--nsp_loss_weight=0`, as `--recipe=budget` sets).
"""

import random
import time

from absl import app
from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS

flags.DEFINE_string("input_file", None, "Input text file(s): comma-separated paths or globs.")
flags.DEFINE_string(
    "output_file", None, "Output TFRecord file, or a comma-separated list written round-robin."
)
flags.DEFINE_integer(
    "num_output_shards", 1, "Split --output_file into this many files named <output_file>-0000i-of-0000N."
)
flags.DEFINE_string("vocab_file", None, "The vocab.txt the model will be trained with.")
flags.DEFINE_string(
    "bert_config_file", None,
    "Optional: the bert_config.json of the model to pretrain; --max_seq_length and --vocab_file "
    "are checked against its max_position_embeddings and vocab_size.",
)
flags.DEFINE_bool("do_lower_case", True, "Lower-case and strip accents (uncased models).")
flags.DEFINE_bool("do_whole_word_mask", False, "Mask all WordPieces of a word together.")
flags.DEFINE_integer("max_seq_length", 128, "Maximum sequence length, [CLS] and [SEP]s included.")
flags.DEFINE_integer("max_predictions_per_seq", 20, "Maximum masked-LM predictions per sequence.")
flags.DEFINE_integer("random_seed", 12345, "Random seed for pairing and masking.")
flags.DEFINE_integer("dupe_factor", 10, "Times to duplicate the input, with different masks.")
flags.DEFINE_float("masked_lm_prob", 0.15, "Fraction of maskable tokens selected for prediction.")
flags.DEFINE_float("mask_token_rate", 0.8, "Of the selected tokens, the fraction set to [MASK].")
flags.DEFINE_float("random_token_rate", 0.1, "Of the selected tokens, the fraction set to a random token.")
flags.DEFINE_integer(
    "max_span_length", 1,
    "Above 1: span masking (SpanBERT): whole-word spans of geometric length (p=--span_length_p), "
    "at most this many words.",
)
flags.DEFINE_float("span_length_p", 0.2, "Geometric parameter of the span lengths.")
flags.DEFINE_bool(
    "shuffle_word_order", False,
    "Shuffle the words within every sentence before pairing and masking (Sinha et al. 2021).",
)
flags.DEFINE_float(
    "short_seq_prob", 0.1, "Probability of a shorter sequence than the maximum length."
)
flags.DEFINE_bool(
    "pack_sequences", False,
    "Full --max_seq_length rows of documents joined by [SEP], with no padding and no "
    "next-sentence labels (masked LM only), instead of BERT's sentence pairs.",
)


def create_pretraining_data(argv_flags):
    """Runs the whole job from parsed flags; returns the `RecordSummary`."""
    f = argv_flags
    start = time.time()
    policy, input_files, outputs, tokenizer = _check_inputs(f)
    documents = _read_documents(input_files, tokenizer, f)
    instances = _create_instances(documents, tokenizer.vocabulary, policy, f)
    return _write_records(instances, outputs, f, start)


def _check_inputs(f):
    """The masking policy, input files, output shards and tokenizer, or a one-line flag error."""
    from keras_bert.cli.common import path_flags

    _check_ranges(f)  # before TensorFlow is imported
    path_flags.check_input_file("vocab_file", f.vocab_file, "vocab.txt")
    path_flags.check_input_file("bert_config_file", f.bert_config_file, "bert_config.json")
    from keras_bert.data.pretraining.dataset import expand_input_files
    from keras_bert.data.pretraining.masking import MaskingPolicy
    from keras_bert.data.pretraining.records import shard_paths
    from keras_bert.tokenization.bert_tokenizer import BertTokenizer

    try:
        policy = MaskingPolicy(
            masked_lm_prob=f.masked_lm_prob,
            max_predictions_per_seq=f.max_predictions_per_seq,
            mask_token_rate=f.mask_token_rate,
            random_token_rate=f.random_token_rate,
            do_whole_word_mask=f.do_whole_word_mask,
            max_span_length=f.max_span_length,
            span_length_p=f.span_length_p,
        )
        input_files = expand_input_files(f.input_file)
        outputs = shard_paths(f.output_file, f.num_output_shards)
        for path in outputs:
            path_flags.check_output_file("output_file", path)
        tokenizer = BertTokenizer(f.vocab_file, do_lower_case=f.do_lower_case)
    except (ValueError, FileNotFoundError, IsADirectoryError) as e:
        raise usage.flag_error(e) from None
    if f.bert_config_file:
        _check_model(f, len(tokenizer.vocabulary))
    return policy, input_files, outputs, tokenizer


# No BERT-style model has more positions (BERT's have 512): a larger --max_seq_length is a typo
# that would fill the disk with padding.
MAX_SEQ_LENGTH = 8192


def _check_ranges(f):
    """Lengths, counts and rates out of range, before any work."""
    least = 2 if f.pack_sequences else 5  # [CLS] a [SEP] (b [SEP])
    if not least <= f.max_seq_length <= MAX_SEQ_LENGTH:
        raise app.UsageError(
            f"--max_seq_length={f.max_seq_length}: use {least} to {MAX_SEQ_LENGTH} tokens, [CLS] "
            "and [SEP]s included: the max_position_embeddings of the model to pretrain (512 for "
            "BERT's; --bert_config_file checks it).")
    if f.max_predictions_per_seq < 1:
        raise app.UsageError(
            f"--max_predictions_per_seq={f.max_predictions_per_seq}: it must be a whole number "
            ">= 1 (google's: max_seq_length * masked_lm_prob, 20 for 128).")
    if not 0.0 < f.masked_lm_prob <= 1.0:
        raise app.UsageError(f"--masked_lm_prob={f.masked_lm_prob:g}: a fraction in (0, 1] "
                             "(BERT's is 0.15).")
    if not 0.0 <= f.short_seq_prob <= 1.0:
        raise app.UsageError(f"--short_seq_prob={f.short_seq_prob:g}: a probability in [0, 1].")
    for name in ("dupe_factor", "num_output_shards"):
        if getattr(f, name) < 1:
            raise app.UsageError(f"--{name}={getattr(f, name)}: it must be a whole number >= 1.")


def _check_model(f, vocabulary_size):
    """--max_seq_length and --vocab_file fit the --bert_config_file model's positions and
    embeddings."""
    from keras_bert.models.bert_config import BertConfig

    try:
        config = BertConfig.from_json_file(f.bert_config_file)
    except (ValueError, FileNotFoundError, IsADirectoryError) as e:
        raise app.UsageError(f"--bert_config_file: {e}") from None
    if f.max_seq_length > config.max_position_embeddings:
        raise app.UsageError(
            f"--max_seq_length={f.max_seq_length} exceeds the model's max_position_embeddings="
            f"{config.max_position_embeddings} (--bert_config_file {f.bert_config_file}).")
    if vocabulary_size > config.vocab_size:
        raise app.UsageError(
            f"--vocab_file {f.vocab_file} has {vocabulary_size} tokens, but the model has "
            f"vocab_size={config.vocab_size} (--bert_config_file {f.bert_config_file}): pass "
            "the model's own vocab.txt.")


def _read_documents(input_files, tokenizer, f):
    """Documents of WordPiece-tokenized sentences (words shuffled with --shuffle_word_order)."""
    from keras_bert.data.pretraining.documents import read_text_documents
    from keras_bert.data.pretraining.documents import tokenize_documents
    from keras_bert.data.pretraining.word_order import shuffle_word_order
    from keras_bert.training.progress import progress_bar

    print(f"Reading {len(input_files)} file(s)...")
    try:
        documents = read_text_documents(input_files)
    except ValueError as e:
        raise app.UsageError(f"--input_file: {e}") from None
    num_sentences = sum(len(d) for d in documents)
    print(f"{len(documents):,} documents, {num_sentences:,} sentences. Tokenizing...")
    bar = progress_bar(num_sentences, unit_name="sentence")
    documents = tokenize_documents(documents, tokenizer, progress=bar.update)
    one_sentence = sum(len(d) == 1 for d in documents)
    if one_sentence and not f.pack_sequences:
        print(
            f"Note: {one_sentence:,} document(s) have a single sentence; they only give "
            "NotNext pairs or pairs split inside the sentence."
        )
    if f.shuffle_word_order:
        print("Shuffling the words of every sentence...")
        documents = shuffle_word_order(documents, tokenizer.vocabulary, random.Random(f.random_seed + 1))
    return documents


def _create_instances(documents, vocabulary, policy, f):
    """Masked sentence pairs (google's NSP instances) or, with --pack_sequences, packed rows."""
    from keras_bert.data.pretraining.instances import create_packed_instances
    from keras_bert.data.pretraining.instances import create_training_instances
    from keras_bert.data.pretraining.masking import TokenMasker
    from keras_bert.tokenization.vocab import special_token_ids

    special = special_token_ids(vocabulary)
    kind = "packed rows" if f.pack_sequences else "sentence pairs"
    print(f"Creating {kind} (dupe_factor={f.dupe_factor})...")
    common = dict(
        cls_token_id=special["[CLS]"], sep_token_id=special["[SEP]"],
        max_seq_length=f.max_seq_length, dupe_factor=f.dupe_factor,
        rng=random.Random(f.random_seed),
    )
    try:
        if f.pack_sequences:
            return create_packed_instances(documents, TokenMasker(vocabulary, policy), **common)
        return create_training_instances(
            documents, TokenMasker(vocabulary, policy), short_seq_prob=f.short_seq_prob, **common,
        )
    except ValueError as e:
        raise app.UsageError(f"--input_file: {e}") from None


def _write_records(instances, outputs, f, start):
    """Writes the TFRecord shards (temporary names, renamed when complete) and prints a summary."""
    from keras_bert.data.pretraining.records import write_pretraining_records
    from keras_bert.training.progress import progress_bar

    print(f"Writing {len(instances):,} instances to {len(outputs)} file(s)...")
    bar = progress_bar(len(instances), unit_name="instance")
    summary = write_pretraining_records(
        instances, outputs, f.max_seq_length, f.max_predictions_per_seq, progress=bar.update
    )
    bar.update(summary.instances)
    print(
        f"Done in {time.time() - start:.0f} s: {summary.instances:,} instances, "
        f"{summary.tokens:,} tokens, {summary.masked_tokens:,} masked-LM targets "
        f"({summary.masked_tokens / max(summary.tokens, 1):.1%} of tokens), "
        + (f"{summary.is_next_fraction:.1%} IsNext, " if summary.is_next_fraction is not None
           else "packed rows, no next-sentence labels, ")
        + f"{len(summary.files)} shard(s):"
    )
    for path in summary.files:
        print(f"  {path}")
    return summary


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    create_pretraining_data(FLAGS)


if __name__ == "__main__":
    flags.mark_flags_as_required(["input_file", "output_file", "vocab_file"])
    usage.run(main)
