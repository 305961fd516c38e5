r"""Read each question's candidate passages once and keep what every retrieve-then-read setting needs.

Makes the records that `experiments.document_qa_benchmark` scores and that
`keras_bert.retrieval.AnswerCalibrator.fit` learns from (issue 55, parts 3 and 5;
docs/retrieval.md, "Asking the whole article"). Resumable: a rerun skips the questions already
in `--output_jsonl`. Rerun (2 threads; the reader is ~61 ms a window on a 2-core Zen 3):

    .venv/bin/python -m experiments.document_qa_collect --squad=../shared/data/squad/dev-v1.1.json.gz \
        --every=10 --output_jsonl=runs/document_qa/dev_every10.jsonl
    .venv/bin/python -m experiments.document_qa_collect \
        --squad=../shared/data/squad/train-v1.1-reconstructed.json.gz --every=100 --offset=7 \
        --output_jsonl=runs/document_qa/train_every100.jsonl

For every chosen question (every `--every`-th, from `--offset`, in file order) of a SQuAD v1.1
file, its whole article (paragraphs joined by blank lines) is cut by `PassageSplitter`; the
passages are ranked by BM25, by the embedder's cosine and by their reciprocal-rank fusion. The
reader reads, once each, the union of the three rankings' first `--top` passages of the
question's own article ("in") and of another article (the next one in the file, "out", where
the question has no answer). Kept per passage read: its ranks, BM25 score and that score's bound
for the question, cosine, whether it holds a gold answer where the annotators marked it, the
reader's `[CLS]` logits, the log-sum-exp of its start and end logits over the passage's tokens,
and its `--n_best` spans (text, character offsets into the document, start and end logits).
"""

import argparse
import gzip
import json
import os
import sys
import time

import numpy as np

from experiments.retrieval_recall import article_document
from experiments.retrieval_recall import gold_spans
from experiments.retrieval_recall import span_hits
from keras_bert.retrieval.answer_calibrator import window_statistics
from keras_bert.retrieval.rank_fusion import reciprocal_rank_fusion

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(ROOT, "apps", "models")
RANKERS = ("bm25", "dense", "rrf")


class Article:
    """One article's passages and rankers."""

    def __init__(self, article, splitter, embedder):
        from keras_bert.retrieval import Bm25Ranker, DenseRanker

        self.title = article["title"]
        self.document, self.paragraph_spans = article_document(article)
        self.passages = splitter(self.document)
        texts = [p.text for p in self.passages]
        self.bm25 = Bm25Ranker(texts)
        self.dense = DenseRanker(embedder, texts)

    def rankings(self, question, question_embedding):
        bm25_scores = self.bm25.scores(question)
        cosines = self.dense.scores(question, question_embedding=question_embedding)
        bm25 = np.argsort(-bm25_scores, kind="stable")
        dense = np.argsort(-cosines, kind="stable")
        rrf = reciprocal_rank_fusion(bm25, dense)
        return bm25_scores, cosines, {"bm25": bm25, "dense": dense, "rrf": rrf}


def read_passages(reader, question, article, question_embedding, top, spans, n_best,
                  rankers=RANKERS):
    """The records of the passages of `article` that any of `rankers` puts in its first `top`."""
    bm25_scores, cosines, orders = article.rankings(question, question_embedding)
    ranks = {name: np.empty(len(order), int) for name, order in orders.items()}
    for name, order in orders.items():
        ranks[name][order] = np.arange(1, len(order) + 1)
    chosen = sorted({int(i) for name in rankers for i in orders[name][:top]})
    hits = span_hits([(p.start, p.end) for p in article.passages], spans) if spans else None
    bound = article.bm25.score_bound(question)
    records = []
    for index in chosen:
        passage = article.passages[index]
        data = reader.windows(question, passage.text)
        begin = time.perf_counter()
        start_logits, end_logits = reader.runner(data.inputs)
        seconds = time.perf_counter() - begin
        cls_logits, lse = window_statistics(start_logits[0], end_logits[0],
                                            data.inputs["segment_ids"][0])
        ranked = reader.rank(data, start_logits, end_logits, passage.text)[:n_best]
        records.append({
            "passage": index, "passages": len(article.passages),
            "start": passage.start, "end": passage.end,
            "rank": {name: int(r[index]) for name, r in ranks.items()},
            "bm25": float(bm25_scores[index]), "bm25_bound": float(bound),
            "cosine": float(cosines[index]),
            "hit": None if hits is None else bool(hits[index]),
            "windows": len(data.inputs["token_ids"]),
            "cls": list(cls_logits), "lse": list(lse),
            "spans": [[a["answer"], passage.start + a["start"], passage.start + a["end"],
                       float(a["start_logit"]), float(a["end_logit"])] for a in ranked],
            "ms": round(1e3 * seconds, 2),
        })
    return records


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--squad", required=True)
    parser.add_argument("--reader", default=os.path.join(MODELS, "squad_minilm_dynamic_int8.tflite"))
    parser.add_argument("--embedder", default=os.path.join(MODELS, "minilm_embedder_dynamic_int8.tflite"))
    parser.add_argument("--every", type=int, default=1, help="Take every N-th question.")
    parser.add_argument("--offset", type=int, default=0, help="The first question taken.")
    parser.add_argument("--top", type=int, default=3, help="Passages per ranking read.")
    parser.add_argument("--n_best", type=int, default=5)
    parser.add_argument("--num_threads", type=int, default=2)
    parser.add_argument("--rankers", default=",".join(RANKERS),
                        help="Read the first --top passages of these rankings (comma-separated).")
    parser.add_argument("--out_of_article", default=True, action=argparse.BooleanOptionalAction,
                        help="Also read another article's passages for each question.")
    parser.add_argument("--gold_paragraph", default=True, action=argparse.BooleanOptionalAction,
                        help="Also read the question's own paragraph (every window), the "
                             "paragraph-given setting SQuAD scores.")
    parser.add_argument("--skip_jsonl", default=None,
                        help="Skip the questions already in this file (another run's records).")
    parser.add_argument("--output_jsonl", required=True)
    args = parser.parse_args(argv)

    from keras_bert import QuestionAnsweringPipeline
    from keras_bert.retrieval import PassageSplitter, TfliteEmbedder

    with gzip.open(args.squad, "rt", encoding="utf-8") as f:
        articles = json.load(f)["data"]
    done = set()
    if os.path.exists(args.output_jsonl):
        with open(args.output_jsonl) as f:
            done = {json.loads(line)["id"] for line in f if line.strip()}
    if args.skip_jsonl:
        with open(args.skip_jsonl) as f:
            done |= {json.loads(line)["id"] for line in f if line.strip()}
    rankers = tuple(args.rankers.split(","))
    reader = QuestionAnsweringPipeline.from_pretrained(args.reader, num_threads=args.num_threads)
    embedder = TfliteEmbedder(args.embedder, num_threads=args.num_threads)
    splitter = PassageSplitter(reader.tokenizer)
    os.makedirs(os.path.dirname(os.path.abspath(args.output_jsonl)), exist_ok=True)
    chosen = []
    number = 0
    for a, article in enumerate(articles):
        for p, paragraph in enumerate(article["paragraphs"]):
            for qa in paragraph["qas"]:
                if number >= args.offset and (number - args.offset) % args.every == 0:
                    chosen.append((a, p, qa))
                number += 1
    todo = [c for c in chosen if c[2]["id"] not in done]
    print(f"{len(chosen)} questions chosen, {len(done)} done before, {len(todo)} to read",
          flush=True)
    cache = {}

    def article_at(index):
        if index not in cache:
            if len(cache) > 3:
                cache.pop(next(iter(cache)))
            cache[index] = Article(articles[index], splitter, embedder)
        return cache[index]

    started = time.perf_counter()
    with open(args.output_jsonl, "a") as out:
        for count, (a, p, qa) in enumerate(todo, 1):
            own = article_at(a)
            other_index = (a + 1) % len(articles)
            other = article_at(other_index) if args.out_of_article else None
            question = qa["question"]
            begin = time.perf_counter()
            question_embedding = own.dense.question_embedding(question)
            embed_ms = 1e3 * (time.perf_counter() - begin)
            spans = gold_spans(qa, own.paragraph_spans[p][0])
            record = {
                "id": qa["id"], "article": a, "title": own.title, "paragraph": p,
                "question": question, "golds": [x["text"] for x in qa["answers"]],
                "question_embed_ms": round(embed_ms, 2),
                "in": read_passages(reader, question, own, question_embedding, args.top, spans,
                                    args.n_best, rankers),
            }
            if args.gold_paragraph:
                best = reader(question, articles[a]["paragraphs"][p]["context"])
                record["gold_paragraph_answer"] = best["answer"]
            if args.out_of_article:
                record["out_article"] = other_index
                record["out"] = read_passages(reader, question, other, question_embedding,
                                              args.top, None, args.n_best, rankers)
            out.write(json.dumps(record) + "\n")
            out.flush()
            if count % 25 == 0 or count == len(todo):
                elapsed = time.perf_counter() - started
                print(f"[{count}/{len(todo)}] {elapsed:.0f} s, "
                      f"{elapsed / count:.2f} s a question", flush=True)


if __name__ == "__main__":
    sys.exit(main())
