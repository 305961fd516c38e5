"""Plots a pretraining run's curves (loss, masked-LM and NSP accuracy, tokens/s) as a PNG.

    python -m keras_bert.cli.plot_pretraining --output_dir=runs/mini [--png=curves.png]

Reads `<output_dir>/train_log.jsonl`, which `run_pretraining` appends to every log interval.
"""

import os

from absl import app
from absl import flags

from keras_bert.cli.common import usage
from keras_bert.cli.common.run_logs import read_log

FLAGS = flags.FLAGS
flags.DEFINE_string("output_dir", None, "A run_pretraining --output_dir.")
flags.DEFINE_string("png", None, "Where to write the plot. Default: <output_dir>/curves.png.")
flags.DEFINE_string("title", None, "Plot title. Default: the run directory's name.")


def plot(entries, png, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [e["step"] for e in entries]
    nsp = "nsp_loss" in entries[-1]  # packed runs (masked LM only) log no NSP
    figure, axes = plt.subplots(1, 3, figsize=(15, 4))
    axes[0].plot(steps, [e["mlm_loss"] for e in entries], label="masked-LM loss")
    if nsp:
        axes[0].plot(steps, [e["nsp_loss"] for e in entries], label="NSP loss")
    axes[0].set_title("loss")
    axes[1].plot(steps, [e["mlm_accuracy"] for e in entries], label="masked-LM accuracy")
    if nsp:
        axes[1].plot(steps, [e["nsp_accuracy"] for e in entries], label="NSP accuracy")
        axes[1].axhline(0.5, color="grey", lw=0.5, ls="--")
    axes[1].set_ylim(0, 1)
    axes[1].set_title("accuracy (per log interval)")
    axes[2].plot(steps, [e["tokens_per_s"] for e in entries], color="tab:green")
    axes[2].set_title("tokens / s")
    for axis in axes:
        axis.set_xlabel("step")
        axis.grid(alpha=0.3)
    axes[0].legend()
    axes[1].legend()
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(png, dpi=110)
    plt.close(figure)


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    entries = read_log(os.path.join(FLAGS.output_dir, "train_log.jsonl"), "run_pretraining")
    png = FLAGS.png or os.path.join(FLAGS.output_dir, "curves.png")
    plot(entries, png, FLAGS.title or os.path.basename(os.path.normpath(FLAGS.output_dir)))
    last = entries[-1]
    print(
        f"{png}: {len(entries)} points to step {last['step']}; last masked-LM accuracy "
        f"{last['mlm_accuracy']:.3f}"
        + (f", NSP accuracy {last['nsp_accuracy']:.3f}" if "nsp_accuracy" in last else "")
    )


if __name__ == "__main__":
    flags.mark_flags_as_required(["output_dir"])
    usage.run(main)
