r"""Masked-LM loss and accuracy of one pretraining run and its continuations, against the token
positions seen, in one figure (issue 29: the 2-hour budget mini, then its continuation).
Makes: docs/images/pretrain_budget_continued.png (docs/pretraining.md, "The 2-hour mini
continued").
Rerun:

    .venv/bin/python -m experiments.plot_pretraining_log \
        --log=docs/runs/pretrain_budget/train_log.jsonl \
        --log=docs/runs/pretrain_budget_cont/train_log.jsonl \
        --tokens_per_step=8192 --output=docs/images/pretrain_budget_continued.png

Each `--log` is a run_pretraining `train_log.jsonl` (a line every `--iterations_per_loop`
steps); later logs continue earlier ones (a warm start counts its steps from 0 again), so each
log's token positions start where the previous log's ended. A step logged twice (a run resumed
from a checkpoint behind its last line) keeps its later line. Dashed lines mark where each
continuation starts.
"""

import json

from absl import app
from absl import flags

from keras_bert.atomic_files import atomic_open
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS


def define_flags():
    """Defined when run, not on import: tests import `chained` beside other modules' --output."""
    flags.DEFINE_multi_string("log", [], "train_log.jsonl files, in the order the runs followed.")
    flags.DEFINE_integer("tokens_per_step", 8192,
                         "Token positions per step (batch x sequence length).")
    flags.DEFINE_string("output", None, "The PNG to write.")


def chained(paths, tokens_per_step):
    """`[(token positions, loss, accuracy)]` per log, positions running on across logs."""
    curves, offset = [], 0
    for path in paths:
        by_step = {}
        with open(path) as f:
            for line in f:
                row = json.loads(line)
                by_step[row["step"]] = row  # a step logged again after a resume: the later line
        steps = sorted(by_step)
        curves.append([(offset + step * tokens_per_step, by_step[step]["mlm_loss"],
                        by_step[step]["mlm_accuracy"]) for step in steps])
        offset += steps[-1] * tokens_per_step
    return curves


def main(argv):
    del argv
    if not FLAGS.log or not FLAGS.output:
        raise app.UsageError("give one or more --log files and --output.")
    curves = chained(FLAGS.log, FLAGS.tokens_per_step)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (loss_axis, accuracy_axis) = plt.subplots(1, 2, figsize=(11, 4))
    for index, (path, curve) in enumerate(zip(FLAGS.log, curves)):
        tokens = [t / 1e6 for t, _, _ in curve]
        label = "run" if index == 0 else f"continuation {index}"
        loss_axis.plot(tokens, [loss for _, loss, _ in curve], label=label)
        accuracy_axis.plot(tokens, [acc for _, _, acc in curve], label=label)
        if index:
            for axis in (loss_axis, accuracy_axis):
                axis.axvline(tokens[0], color="grey", linestyle="--", linewidth=0.8)
        print(f"{path}: {len(curve)} points, ends at {tokens[-1]:.1f} M token positions, "
              f"loss {curve[-1][1]:.3f}, accuracy {curve[-1][2]:.3f}")
    loss_axis.set_ylabel("masked-LM loss (training batches)")
    accuracy_axis.set_ylabel("masked-LM accuracy")
    for axis in (loss_axis, accuracy_axis):
        axis.set_xlabel("token positions seen (M)")
        axis.legend()
        axis.grid(alpha=0.3)
    figure.tight_layout()
    with atomic_open(FLAGS.output, "wb") as f:
        figure.savefig(f, format="png", dpi=100)


if __name__ == "__main__":
    define_flags()
    usage.run(main)
