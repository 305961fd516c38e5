r"""Retrieve-then-read with today's reader: does reading more retrieved passages help?

Makes: docs/retrieval.md, "Reading the retrieved passages: a first look"
(`docs/runs/retrieval/document_qa_first_look.json`). Rerun (~1 min on 2 cores):

    .venv/bin/python -m experiments.document_qa_first_look \
        --output_json=docs/runs/retrieval/document_qa_first_look.json

The questions of the last `--paragraphs` paragraphs of the first SQuAD v1.1 dev article, each
asked against the whole article (its paragraphs joined by blank lines) through
`keras_bert.DocumentQuestionAnsweringPipeline`, reading the top 1, 3 or 5 BM25 passages and the
embedder's top passage; and, for reference, the reader given the question's own paragraph.
Official v1.1 F1 (best over the gold answers), in percent.
"""

import gzip
import json

from absl import app
from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
flags.DEFINE_string("reader", "apps/models/squad_minilm_dynamic_int8.tflite", "QA reader.")
flags.DEFINE_string("embedder", "apps/models/minilm_embedder_dynamic_int8.tflite", "Embedder.")
flags.DEFINE_string("dev_file", "../shared/data/squad/dev-v1.1.json.gz", "SQuAD v1.1 dev.")
flags.DEFINE_integer("paragraphs", 4, "Ask the questions of the article's last N paragraphs.")
flags.DEFINE_integer("num_threads", 2, "LiteRT threads.")
flags.DEFINE_string("output_json", None, "Write the F1 table here.")


def main(argv):
    import keras_bert
    from keras_bert.atomic_files import atomic_open
    from keras_bert.metrics.squad_evaluation import f1_v1

    opener = gzip.open if FLAGS.dev_file.endswith(".gz") else open
    with opener(FLAGS.dev_file, "rt") as f:
        paragraphs = json.load(f)["data"][0]["paragraphs"]
    document = "\n\n".join(p["context"] for p in paragraphs)
    bm25 = keras_bert.DocumentQuestionAnsweringPipeline.from_pretrained(
        FLAGS.reader, num_threads=FLAGS.num_threads)
    dense = keras_bert.DocumentQuestionAnsweringPipeline.from_pretrained(
        FLAGS.reader, embedder_path=FLAGS.embedder, num_threads=FLAGS.num_threads)
    settings = {
        "gold paragraph": lambda q, p: bm25.reader(q, p["context"]),
        "BM25 top 1": lambda q, p: bm25(q, document, passages=1),
        "BM25 top 3": lambda q, p: bm25(q, document, passages=3),
        "BM25 top 5": lambda q, p: bm25(q, document, passages=5),
        "embedder top 1": lambda q, p: dense(q, document, passages=1),
    }
    scores = {name: [] for name in settings}
    for paragraph in paragraphs[-FLAGS.paragraphs:]:
        for qa in paragraph["qas"]:
            golds = [a["text"] for a in qa["answers"]]
            for name, answer in settings.items():
                text = answer(qa["question"], paragraph)["answer"]
                scores[name].append(max(f1_v1(text, gold) for gold in golds))
    table = {name: round(100 * sum(v) / len(v), 2) for name, v in scores.items()}
    result = {"article": 0, "paragraphs": FLAGS.paragraphs, "questions": len(scores["BM25 top 1"]),
              "document_paragraphs": len(paragraphs), "f1": table}
    print(json.dumps(result, indent=1))
    if FLAGS.output_json:
        with atomic_open(FLAGS.output_json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    usage.run(main)
