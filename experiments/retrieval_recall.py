r"""Which passage of a whole article holds the answer: retrieval recall on SQuAD v1.1 dev.

Makes: docs/retrieval.md, "Recall on SQuAD v1.1 dev, article by article"
(`docs/runs/retrieval/squad_dev_recall.json`).
Rerun (the float32 file first, for the int8 comparison; ~25 min on 2 shared cores):

    .venv/bin/python -m tools.export_embedder --quantization=float32 \
        --output=runs/retrieval/minilm_embedder_float32.tflite
    .venv/bin/python -m experiments.retrieval_recall \
        --embedders=dynamic_int8=apps/models/minilm_embedder_dynamic_int8.tflite,float32=runs/retrieval/minilm_embedder_float32.tflite \
        --output_json=docs/runs/retrieval/squad_dev_recall.json

Every dev question is asked against its whole article (48 articles, 2,067 paragraphs, 10,570
questions), in two settings:

- `paragraphs`: the units ranked are the article's SQuAD paragraphs as given; a hit is the
  question's own paragraph.
- `passages`: the article's paragraphs joined with blank lines into one document, cut by
  `keras_bert.retrieval.PassageSplitter` (whole sentences, at most 254 WordPiece tokens, at
  most 64 shared with the neighbour). A passage is a hit if it contains, whole, one of the
  question's gold answers at the place the annotators marked it in the question's paragraph
  (character offsets; the same answer text elsewhere in the article does not count). The
  looser `answer_text` hit counts any passage in which a gold answer's text occurs
  (case-insensitive), as DPR's evaluation does.

recall@k is the share of questions with a hit among the first k units. Rankers: BM25
(`Bm25Ranker`, k1 1.2, b 0.75, Lucene idf), each `--embedders` `.tflite` through `DenseRanker`
(cosine), and a reciprocal-rank fusion of BM25 and the first embedder (`1/(60 + rank)` summed),
measured to decide whether a hybrid earns a place. Timings are LiteRT wall clock with
`--num_threads` threads: the one-time cost of embedding an article's units, and per question the
question's embedding and each ranking.
"""

import argparse
import datetime
import gzip
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

from keras_bert.retrieval.rank_fusion import RRF_K
from keras_bert.retrieval.rank_fusion import reciprocal_rank_fusion

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SQUAD = os.path.join(ROOT, "..", "shared", "data", "squad", "dev-v1.1.json.gz")
KS = (1, 3, 5)
PARAGRAPH_SEPARATOR = "\n\n"


def article_document(article):
    """`(document, [(start, end)] of each paragraph in it)`: the paragraphs joined by a blank
    line, each at its own offsets."""
    spans, offset = [], 0
    for paragraph in article["paragraphs"]:
        spans.append((offset, offset + len(paragraph["context"])))
        offset += len(paragraph["context"]) + len(PARAGRAPH_SEPARATOR)
    return PARAGRAPH_SEPARATOR.join(p["context"] for p in article["paragraphs"]), spans


def gold_spans(qa, paragraph_start):
    """The question's gold answers as `(start, end)` character spans of the document."""
    return sorted({(paragraph_start + a["answer_start"],
                    paragraph_start + a["answer_start"] + len(a["text"])) for a in qa["answers"]})


def span_hits(units, spans):
    """bool `[len(units)]`: each `(start, end)` unit contains one of `spans` whole."""
    return np.array([any(s <= a and b <= e for a, b in spans) for s, e in units], bool)


def text_hits(texts, answers):
    """bool `[len(texts)]`: a gold answer's text occurs in the unit (case-insensitive)."""
    answers = [a.lower() for a in answers]
    return np.array([any(a in t.lower() for a in answers) for t in texts], bool)


def first_hit(order, hits):
    """The 1-based rank of the first hit in `order`, or None."""
    for rank, unit in enumerate(order, 1):
        if hits[unit]:
            return rank
    return None


def recall(ranks, count):
    """`{"recall@k": share of questions whose first hit is at rank <= k}` for `KS`."""
    return {f"recall@{k}": sum(r is not None and r <= k for r in ranks) / count for k in KS}


def _summary(seconds):
    seconds = list(seconds)
    if not seconds:
        return None
    return {"count": len(seconds), "mean_ms": 1e3 * statistics.fmean(seconds),
            "median_ms": 1e3 * statistics.median(seconds), "total_s": sum(seconds)}


def run(squad_path, embedders, num_threads=2, max_articles=None, log=print, on_article=None,
        max_tokens=254, overlap_tokens=64):
    """The study; returns its record (see the module docstring). `embedders`: `{name: path}`;
    `max_tokens`, `overlap_tokens`: the `PassageSplitter`'s."""
    from keras_bert.retrieval import Bm25Ranker, DenseRanker, PassageSplitter, TfliteEmbedder

    with gzip.open(squad_path, "rt", encoding="utf-8") as f:
        articles = json.load(f)["data"][:max_articles]
    models = {name: TfliteEmbedder(path, num_threads=num_threads) for name, path in embedders.items()}
    splitter = PassageSplitter(next(iter(models.values())).tokenizer, max_tokens, overlap_tokens)
    first = next(iter(models))
    methods = ["bm25", *models, f"rrf(bm25,{first})"]
    settings = ("paragraphs", "passages")
    ranks = {(s, m, kind): [] for s in settings for m in methods for kind in ("span", "text")}
    costs = {"split_s": [], "bm25_index_s": [], "bm25_query_s": [], "dense_rank_s": []}
    for name in models:
        costs[f"{name}_unit_embed_s"] = []  # per unit (passage or paragraph)
        costs[f"{name}_article_embed_s"] = {s: [] for s in settings}  # per article, wall clock
        costs[f"{name}_question_embed_s"] = []
    units_per_article = {s: [] for s in settings}
    num_questions = 0
    started = time.perf_counter()
    for number, article in enumerate(articles, 1):
        document, paragraph_spans = article_document(article)
        begin = time.perf_counter()
        passages = splitter(document)
        costs["split_s"].append(time.perf_counter() - begin)
        units = {"paragraphs": paragraph_spans, "passages": [(p.start, p.end) for p in passages]}
        texts = {s: [document[a:b] for a, b in units[s]] for s in settings}
        bm25, dense = {}, {}
        for s in settings:
            units_per_article[s].append(len(units[s]))
            begin = time.perf_counter()
            bm25[s] = Bm25Ranker(texts[s])
            costs["bm25_index_s"].append(time.perf_counter() - begin)
            for name, model in models.items():
                begin = time.perf_counter()
                dense[s, name] = DenseRanker(model, texts[s])
                costs[f"{name}_article_embed_s"][s].append(time.perf_counter() - begin)
                costs[f"{name}_unit_embed_s"].extend(model.seconds)
        for paragraph, (start, _) in zip(article["paragraphs"], paragraph_spans):
            for qa in paragraph["qas"]:
                num_questions += 1
                spans = gold_spans(qa, start)
                question_embeddings = {}
                for name, model in models.items():
                    begin = time.perf_counter()
                    question_embeddings[name] = dense["passages", name].question_embedding(qa["question"])
                    costs[f"{name}_question_embed_s"].append(time.perf_counter() - begin)
                for s in settings:
                    hits = {"span": span_hits(units[s], spans),
                            "text": text_hits(texts[s], [a["text"] for a in qa["answers"]])}
                    begin = time.perf_counter()
                    orders = {"bm25": bm25[s].rank(qa["question"])}
                    costs["bm25_query_s"].append(time.perf_counter() - begin)
                    for name in models:
                        begin = time.perf_counter()
                        orders[name] = dense[s, name].rank(
                            qa["question"], question_embedding=question_embeddings[name])
                        costs["dense_rank_s"].append(time.perf_counter() - begin)
                    orders[methods[-1]] = reciprocal_rank_fusion(orders["bm25"], orders[first])
                    for method, order in orders.items():
                        for kind, unit_hits in hits.items():
                            ranks[s, method, kind].append(first_hit(order, unit_hits))
        line = {m: round(recall(ranks["passages", m, "span"], num_questions)["recall@1"], 4)
                for m in methods}
        log(f"[{number}/{len(articles)}] {article['title']}: {len(texts['passages'])} passages, "
            f"{len(article['paragraphs'])} paragraphs; {num_questions} questions so far, passages "
            f"recall@1 {line} ({time.perf_counter() - started:.0f} s)")
        if on_article is not None:
            on_article(_record(ranks, methods, settings, num_questions, costs, units_per_article,
                               number, len(articles)))
    return _record(ranks, methods, settings, num_questions, costs, units_per_article,
                   len(articles), len(articles))


def _record(ranks, methods, settings, num_questions, costs, units_per_article, done, total):
    results = {s: {m: {kind: recall(ranks[s, m, kind], num_questions) for kind in ("span", "text")}
                   for m in methods} for s in settings}
    timing = {key: ({s: _summary(v) for s, v in value.items()} if isinstance(value, dict)
                    else _summary(value)) for key, value in costs.items()}
    return {"articles_done": done, "articles": total, "questions": num_questions,
            "units": {s: {"total": sum(v), "per_article_mean": statistics.fmean(v) if v else None,
                          "max": max(v, default=None)} for s, v in units_per_article.items()},
            "recall": results, "timing": timing}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--squad", default=DEFAULT_SQUAD)
    parser.add_argument("--embedders", default="dynamic_int8=" + os.path.join(
        "apps", "models", "minilm_embedder_dynamic_int8.tflite"),
        help="name=path.tflite[,name=path...]: sentence-embedder files to rank with.")
    parser.add_argument("--num_threads", type=int, default=2)
    parser.add_argument("--max_articles", type=int, default=None)
    parser.add_argument("--max_passage_tokens", type=int, default=254,
                        help="PassageSplitter max_tokens (254: read whole by reader and embedder).")
    parser.add_argument("--overlap_tokens", type=int, default=64, help="PassageSplitter overlap.")
    parser.add_argument("--output_json", default=None,
                        help="Written after every article (articles_done says how far).")
    args = parser.parse_args(argv)
    embedders = dict(item.split("=", 1) for item in args.embedders.split(","))
    header = {
        "command": "python -m experiments.retrieval_recall " + " ".join(
            sys.argv[1:] if argv is None else argv),
        "data": "SQuAD v1.1 dev (../shared/data/squad/dev-v1.1.json.gz): 48 articles, 2,067 "
                "paragraphs, 10,570 questions",
        "embedders": embedders, "num_threads": args.num_threads,
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "date": datetime.date.today().isoformat(),
        "passages": f"PassageSplitter: whole sentences, <= {args.max_passage_tokens} WordPiece "
                    f"tokens, <= {args.overlap_tokens} shared",
        "bm25": "k1=1.2, b=0.75, idf=ln(1 + (N - df + 0.5) / (df + 0.5)), lower-cased \\w+ terms",
        "rrf": f"sum of 1 / ({RRF_K} + rank) over BM25 and the first embedder",
    }

    def write(record):
        if args.output_json:
            from keras_bert.atomic_files import atomic_open

            os.makedirs(os.path.dirname(os.path.abspath(args.output_json)), exist_ok=True)
            with atomic_open(args.output_json) as f:
                json.dump({**header, **record}, f, indent=2)
                f.write("\n")

    record = run(args.squad, embedders, args.num_threads, args.max_articles,
                 log=lambda line: print(line, flush=True), on_article=write,
                 max_tokens=args.max_passage_tokens, overlap_tokens=args.overlap_tokens)
    write(record)
    for setting, methods in record["recall"].items():
        for method, kinds in methods.items():
            print(setting, method, {k: round(v, 4) for k, v in kinds["span"].items()},
                  "answer_text:", {k: round(v, 4) for k, v in kinds["text"].items()})


if __name__ == "__main__":
    main()
