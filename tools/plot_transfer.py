"""Plots SST-2 dev accuracy against the number of labelled training examples, pretrained vs random.

    .venv/bin/python tools/plot_transfer.py docs/runs/sst2_transfer/*.json --png=docs/sst2_transfer_curve.png

Reads the JSON files `tools/pretraining_transfer.py --json` writes. For every start (pretrained,
random_init) and training-set size it keeps the best dev accuracy over the learning rates it
finds, marks each learning rate's point, and prints the table it drew.
"""

import argparse
import collections
import json


def best_by_size(paths):
    """{arm: {train_examples: [(learning_rate, dev_accuracy), ...]}} from transfer JSON files."""
    points = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in paths:
        with open(path) as f:
            result = json.load(f)
        settings = result["settings"]
        for arm in ("pretrained", "random_init"):
            if arm in result:
                points[arm][settings["train_examples"]].append(
                    (settings["learning_rate"], result[arm]["dev_accuracy"]))
    return points


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", nargs="+")
    parser.add_argument("--png", required=True)
    parser.add_argument("--title", default="SST-2 dev accuracy after fine-tuning (3 epochs)")
    args = parser.parse_args()
    points = best_by_size(args.json)
    if not points:
        parser.error("none of the files has a 'pretrained' or 'random_init' result.")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4.5))
    labels = {"pretrained": "pretrained start", "random_init": "random initialization"}
    for arm, by_size in sorted(points.items()):
        sizes = sorted(by_size)
        best = [max(acc for _, acc in by_size[n]) for n in sizes]
        line, = axis.plot(sizes, [100 * b for b in best], marker="o", label=f"{labels[arm]} (best LR)")
        for n in sizes:
            for lr, acc in by_size[n]:
                axis.scatter([n], [100 * acc], s=12, color=line.get_color(), alpha=0.4)
        for n, b in zip(sizes, best):
            print(f"{arm:12s} {n:6d} examples: best {100 * b:.1f} % over "
                  + ", ".join(f"lr {lr:g} {100 * acc:.1f} %" for lr, acc in sorted(by_size[n])))
    axis.axhline(50, color="grey", linestyle=":", linewidth=0.8)
    axis.set_xscale("log")
    sizes = sorted({n for by_size in points.values() for n in by_size})
    axis.set_xticks(sizes, [f"{n:,}" for n in sizes])
    axis.minorticks_off()
    axis.set_xlabel("labelled SST-2 training examples (first N rows of train)")
    axis.set_ylabel("dev accuracy (%), 872 sentences")
    axis.set_title(args.title)
    axis.grid(alpha=0.3)
    axis.legend()
    figure.tight_layout()
    figure.savefig(args.png, dpi=110)
    print("wrote", args.png)


if __name__ == "__main__":
    main()
