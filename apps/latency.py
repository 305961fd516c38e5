"""Latency of one 384-token window of a QA `.tflite` under ai-edge-litert (Python).

    .venv/bin/python -m apps.latency --num_runs=30 [--model=FILE] [--threads=1,2]

The Python side of the browser comparison (apps/web/e2e/latency.mjs measures LiteRT.js; both
sides and the page of docs/benchmarks.md: `python -m apps.latency_page`): the first bundled
passage and question, batch 1, after 3 warm-up runs, at each thread count. The model defaults
to the shipped one. Prints JSON {threads: {N: {p50_ms, p90_ms, runs}}}.
"""

import argparse
import json
import os

import numpy as np

from apps.demo import PASSAGES
from apps.qa_pipeline import MODEL
from apps.qa_pipeline import TfliteQa


def measure(model_path=MODEL, threads=(1, 2), num_runs=30, warmup=3):
    """{threads: {p50_ms, p90_ms, runs}} of `model_path` on the first bundled question."""
    with open(PASSAGES, encoding="utf-8") as f:
        passage = json.load(f)[0]
    results = {}
    for n in threads:
        qa = TfliteQa(model_path=model_path, num_threads=n)
        _, features = qa.features(passage["questions"][0], passage["context"])
        for _ in range(warmup):
            qa.logits(features)
        seconds = []
        for _ in range(num_runs):
            seconds.extend(qa.logits(features)[2])
        ms = 1000 * np.asarray(seconds)
        results[str(n)] = dict(p50_ms=round(float(np.percentile(ms, 50)), 1),
                               p90_ms=round(float(np.percentile(ms, 90)), 1), runs=len(ms))
    return results


def thread_list(text):
    try:
        values = [int(t) for t in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give positive thread counts, e.g. 1,2,4")
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num_runs", type=int, default=30)
    parser.add_argument("--model", default=MODEL, help="The QA .tflite (default: the shipped one).")
    parser.add_argument("--threads", type=thread_list, default=[1, 2], help="e.g. 1,2,4")
    args = parser.parse_args()
    if args.num_runs < 1:
        parser.error("--num_runs must be at least 1")
    results = measure(args.model, args.threads, args.num_runs)
    print(json.dumps(dict(runtime="ai-edge-litert (XNNPACK)", model=args.model,
                          cpu_count=os.cpu_count(), threads=results)))


if __name__ == "__main__":
    main()
