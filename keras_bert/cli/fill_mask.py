"""What has a pretrained BERT learnt? Fill in the `[MASK]`s of your own sentences.

    python -m keras_bert.cli.fill_mask --init_checkpoint=runs/pretrain/model \
        "the capital of france is [MASK] ." "a [MASK] , heartfelt film ."

Each `[MASK]` is answered by the checkpoint's masked-LM head, with its `--top_k` tokens and
their probabilities. `--init_checkpoint` is a `run_pretraining` output directory (or a `ckpt-N`
prefix in one), a google-research checkpoint with its `cls/predictions` head, or a Hugging Face
`BertForPreTraining` directory; the vocabulary is the `vocab.txt` beside it unless
`--vocab_file` says otherwise. `--output_file` writes the answers as JSON.
"""

import json

from absl import app
from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS

flags.DEFINE_string("init_checkpoint", None, "A pretraining checkpoint with its masked-LM head.")
flags.DEFINE_string("vocab_file", None, "vocab.txt (default: the one next to --init_checkpoint).")
flags.DEFINE_bool("do_lower_case", True, "Lower-case and strip accents (uncased checkpoints).")
flags.DEFINE_integer("max_seq_length", 128, "Longer queries keep their last tokens.")
flags.DEFINE_integer("top_k", 5, "Tokens shown per [MASK].")
flags.DEFINE_string("output_file", None, "Also write the answers here as JSON.")


def _mask_filler():
    from keras_bert.analysis.mask_filler import MaskFiller
    from keras_bert.cli.common.pretrained_checkpoint import load_pretrainer
    from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer

    pretrainer, _, vocab_file = load_pretrainer(FLAGS.init_checkpoint, FLAGS.vocab_file)
    tokenizer = ReferenceTokenizer(vocab_file, do_lower_case=FLAGS.do_lower_case)
    return MaskFiller(pretrainer, tokenizer, FLAGS.max_seq_length)


def main(argv):
    queries = argv[1:]
    if not queries:
        raise app.UsageError('Give one or more queries with [MASK], e.g. "the sky is [MASK] ."')
    if FLAGS.top_k < 1:
        raise app.UsageError(f"--top_k must be >= 1, got {FLAGS.top_k}.")
    filler = _mask_filler()
    try:
        found = filler.top_tokens(queries, FLAGS.top_k)
    except ValueError as e:
        raise usage.flag_error(e) from None
    answers = []
    for query, mask_tokens in zip(queries, found):
        masks = [[{"token": token, "probability": round(p, 4)} for token, p in tokens]
                 for tokens in mask_tokens]
        answers.append({"query": query, "masks": masks})
        print(query)
        for m, tokens in enumerate(masks, 1):
            print(f"  [MASK] {m}: " + ", ".join(f"{t['token']} ({t['probability']:.2f})" for t in tokens))
    if FLAGS.output_file:
        from keras_bert.atomic_files import atomic_open

        with atomic_open(FLAGS.output_file, encoding="utf-8") as f:
            json.dump({"init_checkpoint": FLAGS.init_checkpoint, "answers": answers}, f, indent=1)
        print(f"Wrote {FLAGS.output_file}")


if __name__ == "__main__":
    flags.mark_flags_as_required(["init_checkpoint"])
    usage.run(main)
