"""Learns a WordPiece vocab.txt from your own corpus, for pretraining a BERT on it.

    python -m keras_bert.cli.learn_vocabulary --input_file=corpus.txt --vocab_file=vocab.txt \
        --vocab_size=8000 --do_lower_case

Reads plain text (one sentence or paragraph per line, blank lines ignored; .gz ok): for example
the output of `prepare_pretraining_text`. The vocabulary starts with [PAD] [UNK] [CLS] [SEP]
[MASK] and is then learned on the words BERT's tokenizer splits the text into (see
`keras_bert.learn_vocabulary`); pass the same --do_lower_case to create_pretraining_data.
"""

import os
import time

from absl import app
from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
flags.DEFINE_string("input_file", None, "Text file(s): comma-separated paths or globs; .gz ok.")
flags.DEFINE_string("vocab_file", None, "Where to write the learned vocab.txt.")
flags.DEFINE_integer("vocab_size", 30522, "Most tokens in the vocabulary, special tokens included.")
flags.DEFINE_bool("do_lower_case", True, "Lower-case and strip accents (for uncased models).")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    import tensorflow as tf

    from keras_bert.cli.common.text_files import input_files
    from keras_bert.cli.common.text_files import read_text
    from keras_bert.tokenization.vocab_learning import learn_vocabulary

    start = time.time()
    lines = [
        line
        for path in input_files(FLAGS.input_file)
        for line in read_text(path).splitlines()
        if line.strip()
    ]
    if not lines:
        raise app.UsageError(f"--input_file {FLAGS.input_file}: no text found.")
    os.makedirs(os.path.dirname(os.path.abspath(FLAGS.vocab_file)), exist_ok=True)
    print(f"Learning a vocabulary of at most {FLAGS.vocab_size:,} tokens from {len(lines):,} lines...")
    try:
        vocabulary = learn_vocabulary(
            tf.data.Dataset.from_tensor_slices(lines), FLAGS.vocab_size,
            output_file=FLAGS.vocab_file, do_lower_case=FLAGS.do_lower_case,
        )
    except ValueError as e:  # learn_vocabulary's only ValueError: no room beyond the specials
        raise app.UsageError(f"--vocab_size: {e}") from None
    pieces = sum(token.startswith("##") for token in vocabulary)
    print(
        f"Done in {time.time() - start:.0f} s: {len(vocabulary):,} tokens ({pieces:,} ## continuation "
        f"pieces) -> {FLAGS.vocab_file}"
    )
    if len(vocabulary) < 0.95 * FLAGS.vocab_size:  # the learner lands within 5 % under the size
        print(f"The text has fewer than --vocab_size={FLAGS.vocab_size:,} frequent pieces; that is all it supports.")


if __name__ == "__main__":
    flags.mark_flags_as_required(["input_file", "vocab_file"])
    usage.run(main)
