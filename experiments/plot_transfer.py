"""Plots SST-2 dev accuracy against the number of labelled training examples, pretrained vs random.
Makes: docs/sst2_transfer_curve.png and docs/sst2_transfer_by_epoch.png
(docs/lab/pretraining_history.md, "SST-2 transfer from phase 3" / "from phase 5" / "with 10
fine-tuning epochs") and the tables it prints.
Rerun: the command under each figure there.

    .venv/bin/python experiments/plot_transfer.py docs/runs/sst2_transfer/*.json --png=docs/sst2_transfer_curve.png

Reads the JSON files `experiments/pretraining_transfer.py --json` writes. A start is `random_init` or
`pretrained: <checkpoint folder>`, so runs from several pretraining checkpoints draw one line each.
For every start, training-set size and learning rate it averages the seeds it finds; the line
follows the learning rate with the best mean (error bars: standard deviation over seeds, shown
where there is more than one), the faint points are the single runs. It prints the table it drew.
Runs fine-tuned with different epochs, batch size or sequence length are refused together.

With `--by_epoch=N` it instead draws dev accuracy after every fine-tuning epoch for the runs with
N training examples (mean over seeds per start, at each start's best learning rate), from the
`dev_accuracy_by_epoch` lists the tool records: whether a start converges faster or higher.
"""

import argparse
import collections
import json
import os
import statistics


def _checkpoint_name(path):
    """`model_phase5` for a run folder, `model_phase5/ckpt-2000` for one of its checkpoints."""
    parent, name = os.path.split(os.path.normpath(path))
    return f"{os.path.basename(parent)}/{name}" if name.startswith("ckpt-") else name


def read_runs(paths, by_epoch=False):
    """{start: {train_examples: {learning_rate: [dev_accuracy per seed]}}} from transfer JSON files.

    With `by_epoch`, each seed's entry is its list of per-epoch dev accuracies (runs recorded
    before the tool kept them are left out).
    """
    runs = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    budget = {}  # fine-tuning budget: runs that differ in it are not points of one curve
    for path in paths:
        with open(path) as f:
            result = json.load(f)
        settings = result["settings"]
        this = {k: settings[k] for k in ("epochs", "batch_size", "max_seq_length")}
        budget = budget or dict(this, path=path)
        if any(budget[k] != v for k, v in this.items()):
            raise SystemExit(f"{path} was fine-tuned with {this}, {budget['path']} with "
                             f"{ {k: budget[k] for k in this} }: plot them separately.")
        for arm in ("pretrained", "random_init"):
            if arm in result and (not by_epoch or "dev_accuracy_by_epoch" in result[arm]):
                start = arm
                if arm == "pretrained":
                    start = "pretrained: " + _checkpoint_name(settings["init_checkpoint"])
                by_lr = runs[start][settings["train_examples"]]
                by_lr[settings["learning_rate"]].append(
                    result[arm]["dev_accuracy_by_epoch"] if by_epoch else result[arm]["dev_accuracy"])
    return runs


def best_learning_rate(by_lr):
    """(learning_rate, mean, std, seeds) of the learning rate with the best mean accuracy."""
    lr = max(by_lr, key=lambda lr: statistics.mean(by_lr[lr]))
    accs = by_lr[lr]
    return lr, statistics.mean(accs), statistics.stdev(accs) if len(accs) > 1 else 0.0, len(accs)


def describe(by_lr):
    return ", ".join(
        f"lr {lr:g} {100 * statistics.mean(a):.1f} %" + (f" (mean of {len(a)})" if len(a) > 1 else "")
        for lr, a in sorted(by_lr.items()))


def starts_in_order(runs):
    """`(start, label, by_size)` with random initialization first, for a stable legend."""
    for start, by_size in sorted(runs.items(), key=lambda item: item[0] != "random_init"):
        yield start, start.replace("random_init", "random initialization"), by_size


def plot_by_size(runs, axis):
    """Dev accuracy against training-set size, one line per start at its best learning rate."""
    for start, name, by_size in starts_in_order(runs):
        sizes = sorted(by_size)
        best = [best_learning_rate(by_size[n]) for n in sizes]
        label = name + " (best LR)"
        line = axis.errorbar(sizes, [100 * b[1] for b in best], yerr=[100 * b[2] for b in best],
                             marker="o", capsize=3, label=label)
        color = line[0].get_color()
        for n in sizes:
            accs = [a for per_lr in by_size[n].values() for a in per_lr]
            axis.scatter([n] * len(accs), [100 * a for a in accs], s=12, color=color, alpha=0.35)
        for n, (lr, mean, std, seeds) in zip(sizes, best):
            spread = f" ± {100 * std:.1f} ({seeds} seeds)" if seeds > 1 else ""
            print(f"{start:36s} {n:6d} examples: best lr {lr:g} {100 * mean:.1f} %{spread}; "
                  + describe(by_size[n]))
    axis.axhline(50, color="grey", linestyle=":", linewidth=0.8)
    axis.set_xscale("log")
    sizes = sorted({n for by_size in runs.values() for n in by_size})
    axis.set_xticks(sizes, [f"{n:,}" for n in sizes])
    axis.minorticks_off()
    axis.set_xlabel("labelled SST-2 training examples (first N rows of train)")


def plot_by_epoch(runs, size, axis):
    """Mean dev accuracy after each epoch, one line per start, for `size` training examples."""
    import numpy as np

    for start, name, by_size in starts_in_order(runs):
        if size not in by_size:
            continue
        by_lr = by_size[size]
        lr = max(by_lr, key=lambda lr: np.mean([curve[-1] for curve in by_lr[lr]]))
        curves = 100 * np.asarray(by_lr[lr])  # [seeds, epochs]
        epochs = np.arange(1, curves.shape[1] + 1)
        label = f"{name} (lr {lr:g}, {len(curves)} seed{'s' if len(curves) > 1 else ''})"
        line = axis.errorbar(epochs, curves.mean(0), yerr=curves.std(0, ddof=1) if len(curves) > 1 else None,
                             marker="o", capsize=3, label=label)
        for curve in curves:
            axis.plot(epochs, curve, color=line[0].get_color(), alpha=0.25, linewidth=0.8)
        print(f"{start:36s} lr {lr:g}: " + " ".join(f"{a:.1f}" for a in curves.mean(0)))
    axis.set_xlabel("fine-tuning epoch")
    axis.set_xticks(epochs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", nargs="+")
    parser.add_argument("--png", required=True)
    parser.add_argument("--title", default="SST-2 dev accuracy after fine-tuning (3 epochs)")
    parser.add_argument("--by_epoch", type=int, metavar="N",
                        help="draw accuracy per epoch for the runs with N training examples")
    args = parser.parse_args()
    runs = read_runs(args.json, by_epoch=args.by_epoch is not None)
    if args.by_epoch is not None and not any(args.by_epoch in by_size for by_size in runs.values()):
        parser.error(f"--by_epoch={args.by_epoch}: no run with per-epoch accuracies has that many examples.")
    if not runs:
        parser.error("none of the files has a 'pretrained' or 'random_init' result.")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7.5, 4.8))
    if args.by_epoch is not None:
        plot_by_epoch(runs, args.by_epoch, axis)
    else:
        plot_by_size(runs, axis)
    axis.set_ylabel("dev accuracy (%), 872 sentences")
    axis.set_title(args.title)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(args.png, dpi=110)
    print("wrote", args.png)

if __name__ == "__main__":
    main()
