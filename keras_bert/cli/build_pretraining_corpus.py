r"""Builds one pretraining corpus from the unlabelled text of several datasets, deduplicated, with
the evaluation sets' text held out.

    python -m keras_bert.cli.build_pretraining_corpus \
        --sources='books:../shared/data/text/gutenberg/*.txt.gz,wikitext:../shared/data/text/wikitext-2/*.txt.gz,squad:../shared/data/squad/train-v1.1-reconstructed.json.gz,glue:../shared/data/glue/SST-2,glue:../shared/data/glue/MRPC,glue:../shared/data/glue/CoLA,glue:../shared/data/glue/RTE,conll:../shared/data/conll2003/train.txt.gz' \
        --held_out='squad:../shared/data/squad/dev-v1.1.json.gz,glue_dev:../shared/data/glue/SST-2,glue_dev:../shared/data/glue/MRPC,glue_dev:../shared/data/glue/CoLA,glue_dev:../shared/data/glue/RTE,conll:../shared/data/conll2003/valid.txt.gz,conll:../shared/data/conll2003/test.txt.gz' \
        --output_file=corpus/all.txt

Each `--sources` entry is `kind:path`: `books` (raw text files, a glob; chapters become
documents), `wikitext` (WikiText files, a glob; one document per article), `squad` (a SQuAD JSON:
the paragraphs of each article, never the questions), `glue` (a GLUE task folder, its train
texts without labels), `conll` (a CoNLL-2003 file, its sentences without tags). `--held_out`
takes the same kinds (plus `glue_dev`, a task folder's dev texts): none of their sentences is
kept. Repeated sentences are kept once. Writes google-research/bert's format (a sentence per
line, a blank line between documents) for `create_pretraining_data`, and a JSON summary next to
it with what each source gave and lost.
"""

import json
import os

from absl import app
from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
flags.DEFINE_list("sources", None, "kind:path entries: books, wikitext, squad, glue, conll.")
flags.DEFINE_list("held_out", [], "kind:path entries whose sentences must not be kept "
                                  "(squad, glue_dev, conll, wikitext, books).")
flags.DEFINE_string("output_file", None, "The corpus (a sentence per line); the summary goes "
                                         "to the same name + .json.")
flags.DEFINE_integer("max_sentences_per_document", 400, "books: close a chapter after this many.")

KINDS = ("books", "wikitext", "squad", "glue", "glue_dev", "conll")


def _task_name(folder):
    from keras_bert.data.tasks.classification_data import GLUE_TASKS

    name = os.path.basename(os.path.normpath(folder)).lower()
    if name not in GLUE_TASKS:
        raise ValueError(f"{folder}: a GLUE task folder is named after its task, one of "
                         f"{sorted(GLUE_TASKS)} (case does not matter).")
    return name


def read_source(entry):
    """`(name, documents)` of one `kind:path` entry."""
    from keras_bert.cli.common.text_files import input_files
    from keras_bert.data.pretraining import corpus_sources as sources

    kind, _, path = entry.partition(":")
    if kind not in KINDS or not path:
        raise ValueError(f"{entry!r}: give kind:path with kind one of {KINDS}.")
    if kind in ("books", "wikitext"):
        documents = []
        for file in input_files(path):
            documents.extend(sources.book_documents(file, FLAGS.max_sentences_per_document)
                             if kind == "books" else sources.wikitext_documents(file))
    elif kind == "squad":
        documents = sources.squad_documents(path)
    elif kind in ("glue", "glue_dev"):
        documents = sources.glue_documents(path, _task_name(path),
                                           "train" if kind == "glue" else "dev")
    else:
        documents = sources.conll_documents(path)
    if not documents:
        raise ValueError(f"{entry}: no text found.")
    return entry, documents


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    from keras_bert.data.pretraining.corpus_sources import build_corpus
    from keras_bert.data.pretraining.text_to_documents import write_documents

    try:
        held_out = [doc for entry in FLAGS.held_out for doc in read_source(entry)[1]]
        sources = [read_source(entry) for entry in FLAGS.sources]
    except (ValueError, FileNotFoundError, KeyError) as e:
        raise app.UsageError(e.args[0] if isinstance(e, KeyError) else str(e)) from None
    documents, summary = build_corpus(sources, held_out)
    if not documents:
        raise app.UsageError("Every sentence of --sources is held out or repeated: nothing to write.")
    write_documents(documents, FLAGS.output_file)
    summary_path = FLAGS.output_file + ".json"
    with open(summary_path + ".tmp", "w") as f:
        json.dump({"sources": FLAGS.sources, "held_out": FLAGS.held_out, **summary.to_json()},
                  f, indent=1)
    os.replace(summary_path + ".tmp", summary_path)
    width = max(len(name) for name, _ in sources)
    print(f"{'source':<{width}}  documents  sentences      words  repeated  held out")
    for name, _ in sources:
        print(f"{name:<{width}}  {summary.documents[name]:>9,}  {summary.sentences[name]:>9,}  "
              f"{summary.words[name]:>9,}  {summary.duplicates[name]:>8,}  "
              f"{summary.held_out[name]:>8,}")
    print(f"{len(documents):,} documents, {sum(summary.words.values()):,} words: "
          f"{FLAGS.output_file} (summary {summary_path})")


if __name__ == "__main__":
    flags.mark_flags_as_required(["sources", "output_file"])
    usage.run(main)
