"""Turns raw text files (e.g. Project Gutenberg books, .txt or .txt.gz) into pretraining input.

    python -m keras_bert.cli.prepare_pretraining_text \
        --input_file='../shared/data/text/gutenberg/*.txt.gz' --output_file=corpus/books.txt

Writes google-research/bert's format: one sentence per line, a blank line between documents
(chapters, see `keras_bert.data.text_to_documents`).
"""

import gzip

from absl import app
from absl import flags

FLAGS = flags.FLAGS
flags.DEFINE_string("input_file", None, "Raw text file(s): comma-separated paths or globs; .gz ok.")
flags.DEFINE_string("output_file", None, "Where to write the sentence-per-line text.")
flags.DEFINE_integer("max_sentences_per_document", 400, "Close a document after this many sentences.")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    from keras_bert.data.pretraining_dataset import expand_input_files
    from keras_bert.data.text_to_documents import text_to_documents
    from keras_bert.data.text_to_documents import write_documents

    try:
        paths = expand_input_files(FLAGS.input_file)
    except FileNotFoundError as e:
        raise app.UsageError(str(e)) from None
    documents = []
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        try:
            with opener(path, "rt", encoding="utf-8") as f:
                book = text_to_documents(f.read(), FLAGS.max_sentences_per_document)
        except UnicodeDecodeError as e:
            raise app.UsageError(f"{path} is not UTF-8 text ({e}).") from None
        if not book:
            print(f"Skipping {path}: no sentences found.")
        documents.extend(book)
    if not documents:
        raise app.UsageError(f"--input_file {FLAGS.input_file}: no text found.")
    write_documents(documents, FLAGS.output_file)
    sentences = sum(len(d) for d in documents)
    print(f"{len(paths)} file(s) -> {len(documents):,} documents, {sentences:,} sentences: {FLAGS.output_file}")


if __name__ == "__main__":
    flags.mark_flags_as_required(["input_file", "output_file"])
    app.run(main)
