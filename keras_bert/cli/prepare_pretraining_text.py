"""Turns raw text files (e.g. Project Gutenberg books, .txt or .txt.gz) into pretraining input.

    python -m keras_bert.cli.prepare_pretraining_text \
        --input_file='../shared/data/text/gutenberg/*.txt.gz' --output_file=corpus/books.txt

Writes google-research/bert's format: one sentence per line, a blank line between documents
(chapters, see `keras_bert.data.text_to_documents`).
"""

from absl import app
from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
flags.DEFINE_string("input_file", None, "Raw text file(s): comma-separated paths or globs; .gz ok.")
flags.DEFINE_string("output_file", None, "Where to write the sentence-per-line text.")
flags.DEFINE_integer("max_sentences_per_document", 400, "Close a document after this many sentences.")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    from keras_bert.cli.common.text_files import input_files
    from keras_bert.cli.common.text_files import read_text
    from keras_bert.data.pretraining.text_to_documents import text_to_documents
    from keras_bert.data.pretraining.text_to_documents import write_documents

    paths = input_files(FLAGS.input_file)
    documents = []
    for path in paths:
        book = text_to_documents(read_text(path), FLAGS.max_sentences_per_document)
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
    usage.run(main)
