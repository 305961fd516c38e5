r"""How far can reading a ranker's first k passages go? Oracle ceilings from collected reads.

Makes: docs/retrieval.md, "How far reading k passages can go: the ceiling"
(`docs/runs/retrieval/document_qa_ceiling.json`). Rerun (seconds; no model runs here), on the
records `experiments.document_qa_collect` wrote:

    .venv/bin/python -m experiments.document_qa_ceiling \
        --records=runs/document_qa/dev_every10.jsonl,runs/document_qa/dev_rest.jsonl \
        --output_json=docs/runs/retrieval/document_qa_ceiling.json

Per ranker and k, over the questions: the share whose gold passage (one holding a gold answer
where the annotators marked it) is among the first k read; the F1 of an oracle that picks that
passage and takes the reader's best span in it (0 when it was not read); and the F1 of an
oracle picking the best of every candidate span the reader gave for the k passages.
"""

import argparse
import datetime
import json
import sys

import numpy as np

from experiments.document_qa_benchmark import best_f1
from experiments.document_qa_benchmark import load


def ceilings(records, ranker, k):
    """`{"gold_passage_read", "gold_passage_top_span_f1", "best_candidate_f1"}` in %, or None
    when the records do not hold the ranker's first k passages (collected with a smaller --top)."""
    read, top_span, best = [], [], []
    for r in records:
        ranks = {p["rank"][ranker] for p in r["in"]}
        total = r["in"][0]["passages"] if r["in"] else 0
        if not set(range(1, min(k, total) + 1)) <= ranks:
            return None  # a passage of the first k was not read
    for r in records:
        passages = [p for p in r["in"] if p["rank"][ranker] <= k]
        gold = [p for p in passages if p["hit"] and p["spans"]]
        read.append(bool(gold))
        top_span.append(max((best_f1(p["spans"][0][0], r["golds"]) for p in gold), default=0.0))
        best.append(max((best_f1(s[0], r["golds"]) for p in passages for s in p["spans"]),
                        default=0.0))
    return {"gold_passage_read": 100 * float(np.mean(read)),
            "gold_passage_top_span_f1": 100 * float(np.mean(top_span)),
            "best_candidate_f1": 100 * float(np.mean(best))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", required=True, help="Comma-separated .jsonl files.")
    parser.add_argument("--rankers", default="bm25,rrf")
    parser.add_argument("--max_k", type=int, default=5)
    parser.add_argument("--output_json", default=None)
    args = parser.parse_args(argv)
    records = [r for path in args.records.split(",") for r in load(path)]
    if not records:
        parser.error(f"No records in {args.records}.")
    out = {"command": "python -m experiments.document_qa_ceiling " + " ".join(
        sys.argv[1:] if argv is None else argv), "date": datetime.date.today().isoformat(),
           "questions": len(records), "ceilings": {}}
    for ranker in args.rankers.split(","):
        for k in range(1, args.max_k + 1):
            result = ceilings(records, ranker, k)
            if result is None:
                continue
            out["ceilings"][f"{ranker} top {k}"] = result
            print(f"{ranker} top {k}: " + ", ".join(f"{name} {value:.1f}"
                                                    for name, value in result.items()))
    if args.output_json:
        from keras_bert.atomic_files import atomic_open

        with atomic_open(args.output_json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
