"""Latency of one 384-token window of the shipped int8 QA model under ai-edge-litert (Python).

    .venv/bin/python -m apps.latency --num_runs=30

The Python side of the browser comparison (apps/web/e2e/latency.mjs measures LiteRT.js): the
first bundled passage and question, batch 1, after 3 warm-up runs, at 1 and 2 threads. Prints
JSON {threads: {p50_ms, p90_ms}}.
"""

import argparse
import json
import os

import numpy as np

from apps.demo import PASSAGES
from apps.qa_pipeline import TfliteQa


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num_runs", type=int, default=30)
    args = parser.parse_args()
    with open(PASSAGES, encoding="utf-8") as f:
        passage = json.load(f)[0]
    results = {}
    for threads in (1, 2):
        qa = TfliteQa(num_threads=threads)
        _, features = qa.features(passage["questions"][0], passage["context"])
        for _ in range(3):  # warm-up
            qa.logits(features)
        seconds = []
        for _ in range(args.num_runs):
            seconds.extend(qa.logits(features)[2])
        ms = 1000 * np.asarray(seconds)
        results[threads] = dict(p50_ms=round(float(np.percentile(ms, 50)), 1),
                                p90_ms=round(float(np.percentile(ms, 90)), 1), runs=len(ms))
    print(json.dumps(dict(runtime="ai-edge-litert (XNNPACK)", cpu_count=os.cpu_count(),
                          threads=results)))


if __name__ == "__main__":
    main()
