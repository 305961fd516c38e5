"""Draws SQuAD dev F1 (and EM) against the training windows seen, for one or more runs.
Makes: docs/images/squad_learning_curve.png (docs/fine_tuning.md, "SQuAD v1.1, the full recipe").
Rerun: the command below.

    .venv/bin/python experiments/plot_squad_curve.py \
        "2-epoch schedule, CPU (stopped at 1.44 epochs)=docs/runs/squad_minilm_full_eval_history.jsonl" \
        "2-epoch schedule, H200 (the new parent; end only)=docs/runs/squad_gpu/parent_eval_history.jsonl" \
        "2,200-step schedule (previous parent)=docs/runs/squad_minilm_ship_eval_history.jsonl" \
        --reference="78:issue 28's bar" \
        --batch_size=32 --windows=88641 --png=docs/images/squad_learning_curve.png

Each series is `label=path` to a JSON-lines file with `step`, `exact_match` and `f1` per line
(`run_squad --eval_every_steps` writes `eval_history.jsonl` in this form). Steps become windows
seen (`step * --batch_size`) on the bottom axis and epochs (`/ --windows`) on the top one.
`--reference=F1:label` draws horizontal lines (the previous model, the issue's target).
"""

import argparse
import json


def read_series(spec):
    if "=" not in spec:
        raise SystemExit(f"{spec!r}: give each series as label=path.jsonl.")
    label, path = spec.split("=", 1)
    try:
        with open(path) as f:
            points = [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        raise SystemExit(f"{path} does not exist (series {label!r}).") from None
    missing = [p for p in points if not {"step", "f1", "exact_match"} <= set(p)]
    if missing or not points:
        raise SystemExit(f"{path}: every line needs step, exact_match and f1.")
    return label, sorted(points, key=lambda p: p["step"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("series", nargs="+", help="label=path.jsonl")
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--windows", type=int, required=True, help="training windows per epoch")
    parser.add_argument("--reference", action="append", default=[], help="F1:label")
    parser.add_argument("--png", required=True)
    args = parser.parse_args()
    series = [read_series(spec) for spec in args.series]

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(8, 4.5))
    for index, (label, points) in enumerate(series):
        seen = [p["step"] * args.batch_size for p in points]
        color = f"C{index}"
        axis.plot(seen, [p["f1"] for p in points], marker="o", color=color, label=f"{label}: F1")
        axis.plot(seen, [p["exact_match"] for p in points], marker=".", ls="--", color=color,
                  alpha=0.6, label=f"{label}: EM")
        for x, p in zip(seen, points):
            axis.annotate(f"{p['f1']:.1f}", (x, p["f1"]), textcoords="offset points",
                          xytext=(0, 6), ha="center", fontsize=8, color=color)
    for reference in args.reference:
        value, _, label = reference.partition(":")
        axis.axhline(float(value), color="grey", lw=0.8, ls=":")
        axis.annotate(label or value, (0, float(value)), textcoords="offset points",
                      xytext=(4, 3), fontsize=8, color="grey")
    axis.set_xlabel(f"training windows seen (batch {args.batch_size})")
    axis.set_ylabel("official SQuAD v1.1 dev score")
    axis.set_xlim(left=0)
    top = axis.secondary_xaxis("top", functions=(lambda w: w / args.windows,
                                                 lambda e: e * args.windows))
    top.set_xlabel(f"epochs ({args.windows:,} windows)")
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8, loc="lower right")
    figure.tight_layout()
    figure.savefig(args.png, dpi=110)
    print(f"{args.png}: {sum(len(p) for _, p in series)} points in {len(series)} series")


if __name__ == "__main__":
    main()
