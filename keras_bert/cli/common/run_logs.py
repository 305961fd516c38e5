"""Reading the JSON-lines logs runs write, and drawing a fine-tuning run's dev curve."""

import json
import os

from absl import app


def read_log(path, writer):
    """The entries of a JSON-lines log, one per step (a resumed run's re-logged steps: the latest).

    `writer` names the tool that writes it, for the error when the file is missing.
    """
    try:
        with open(path) as f:
            entries = [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        raise app.UsageError(f"{path} does not exist: is it a {writer} --output_dir?") from None
    if not entries:
        raise app.UsageError(f"{path} is empty: the run has not logged a step yet.")
    by_step = {entry["step"]: entry for entry in entries}
    return [by_step[step] for step in sorted(by_step)]


def plot_eval_history(output_dir, monitor, title):
    """Draws `<output_dir>/eval_history.jsonl` (dev metric and training loss per evaluation)
    to `<output_dir>/eval_curves.png`, marking the best checkpoint; returns the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    entries = read_log(os.path.join(output_dir, "eval_history.jsonl"), "fine-tuning")
    steps = [e["step"] for e in entries]
    best = max(entries, key=lambda e: e[monitor])
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.plot(steps, [e[monitor] for e in entries], marker="o")
    left.plot([best["step"]], [best[monitor]], marker="*", ms=16, color="tab:red", ls="",
              label=f"best: {best[monitor]:.4g} at step {best['step']} (saved)")
    left.set_title(f"dev {monitor}")
    left.legend()
    right.plot(steps, [e.get("train_loss", float("nan")) for e in entries], marker="o",
               color="tab:orange")
    right.set_title("training loss (mean over the last loop)")
    for axis in (left, right):
        axis.set_xlabel("step")
        axis.grid(alpha=0.3)
    figure.suptitle(title)
    figure.tight_layout()
    path = os.path.join(output_dir, "eval_curves.png")
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
