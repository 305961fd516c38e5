"""A question over a whole document: retrieve-then-read against reading every window.

The bundled whole article (apps/web/data/articles.json: Rhine, 44 paragraphs of SQuAD v1.1
dev) and its suggested questions, with the shipped files (apps/models) through ai-edge-litert at
`--threads` threads. Candidates, interleaved, one question per call (the questions in turn):

- "read every window": today's app, `QuestionAnsweringPipeline` over the whole text (384-token
  windows, stride 128), the best span whatever it is;
- "BM25, top k, logits merged": `DocumentQuestionAnsweringPipeline(ranker="bm25", passages=k)`
  without a calibrator, k the shipped pipeline's passage count;
- "shipped": `DocumentQuestionAnsweringPipeline.from_pretrained` with the embedder and
  `answer_calibrator.json` (its ranker and passage count), the question embedded once.

The document is split, indexed and (for the shipped pipeline) embedded once before timing; that
one-time cost is timed on its own and given in the notes. The config flag is unused: the
shipped models are MiniLM.
"""

import json
import os
import time

from benchmarks.harness import interleaved

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTICLES = os.path.join(_ROOT, "apps", "web", "data", "articles.json")
READER = os.path.join(_ROOT, "apps", "models", "squad_minilm_dynamic_int8.tflite")
EMBEDDER = os.path.join(_ROOT, "apps", "models", "minilm_embedder_dynamic_int8.tflite")


def run(config_name, options, log=print):
    import keras_bert

    with open(ARTICLES, encoding="utf-8") as f:
        article = json.load(f)[0]
    document = article["context"]
    questions = article["questions"] + article["questions_without_answer"]
    shipped = keras_bert.DocumentQuestionAnsweringPipeline.from_pretrained(
        READER, embedder_path=EMBEDDER, num_threads=options.threads)
    if shipped.calibrator is None:
        raise FileNotFoundError("apps/models/answer_calibrator.json is missing: the shipped "
                                "pipeline needs it (python -m experiments.document_qa_benchmark).")
    bm25 = keras_bert.DocumentQuestionAnsweringPipeline(shipped.reader, ranker="bm25",
                                                        passages=shipped.passages)
    begin = time.perf_counter()
    passages = shipped.split(document).passages
    one_time_s = time.perf_counter() - begin
    bm25.split(document)
    windows = len(shipped.reader.windows(questions[0], document).inputs["token_ids"])

    def asking(answer):
        state = {"next": 0}

        def call():
            answer(questions[state["next"] % len(questions)], document)
            state["next"] += 1
        return call

    candidates = {
        "read every window": (asking(shipped.reader), 1),
        f"BM25, top {bm25.passages}, logits merged": (asking(bm25), 1),
        f"shipped: {shipped.ranker}, top {shipped.passages}, calibrated": (asking(shipped), 1),
    }
    log(f"document_qa: {len(document):,} characters, {len(passages)} passages, {windows} "
        f"windows; timing {len(candidates)} candidates")
    # Each candidate asks every question once per len(questions) rounds.
    rounds = max(options.rounds, len(questions))
    timings = interleaved(candidates, rounds=rounds, warmup=options.warmup, log=lambda *a: None,
                          settle_s=options.settle_s)
    for timing in timings.values():
        timing.unit = "questions/s"
    return [{
        "suite": "document_qa",
        "config": "minilm (shipped files)",
        "case": f"{article['title']}: {len(document):,} characters, {len(passages)} passages, "
                f"{windows} windows of 384; ai-edge-litert, {options.threads} threads",
        "metric": "latency",
        "reference": "read every window",
        "timings": [t.to_json() for t in timings.values()],
        "notes": {
            "one-time cost of the document (split, BM25 index, embedding every passage)":
                f"{1000 * one_time_s:.0f} ms",
            "questions": f"{len(questions)} in turn: {len(article['questions'])} answered in "
                         f"the article's last paragraphs, {len(article['questions_without_answer'])}"
                         f" from {article['questions_without_answer_from']} (no answer)",
        },
    }]
