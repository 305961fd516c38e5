r"""A small sweep before the long SQuAD run: learning rate x warm-up x epochs on a subset.
Makes: docs/fine_tuning.md, "SQuAD v1.1, the full recipe": the sweep table and
docs/images/squad_sweep.png (docs/runs/squad_sweep/sweep.json), and the TAPT row
(docs/runs/squad_sweep/tapt.json, via docs/runs/squad_tapt_run.sh).
Rerun: the command below with --learning_rates=5e-5,1e-4,2e-4,4e-4.

    .venv/bin/python -m experiments.squad_sweep --json=docs/runs/squad_sweep/sweep.json \
        --plot=docs/images/squad_sweep.png

Fine-tunes all-MiniLM-L6-v2 with `run_squad` once per grid point, on the same seeded subset of
the reconstructed train set (`--train_examples` questions), at the full recipe's sequence
length, stride, batch and precision, and scores each on the first dev articles (official
EM / F1). Finished points are read, not repeated; an interrupted point resumes from its
checkpoints, so re-running the command continues the sweep. Prints a Markdown table.
"""

import itertools
import os
import sys

from absl import app
from absl import flags

from experiments.cli_runs import minilm_checkpoint, run_once, squad_dev_subset, sweep_table, write_json
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
flags.DEFINE_string("output_dir", "runs/squad_sweep", "Where every grid point's folder goes.")
flags.DEFINE_string("data_dir", "../shared/data", "The shared data folder.")
flags.DEFINE_list("learning_rates", ["5e-5", "1e-4", "2e-4"], "Peak learning rates.")
flags.DEFINE_list("warmup_proportions", ["0.1"], "Warm-up fractions of the steps.")
flags.DEFINE_list("num_train_epochs", ["1"], "Epochs over the subset.")
flags.DEFINE_integer("train_examples", 12000, "Training questions (a seeded subset).")
flags.DEFINE_integer("dev_questions", 1000, "Score on the first dev articles up to this many questions.")
flags.DEFINE_integer("max_seq_length", 384, "As the full recipe.")
flags.DEFINE_integer("train_batch_size", 32, "As the full recipe.")
flags.DEFINE_string("dtype_policy", "auto", "As the full recipe (auto: bf16 where the CPU has it).")
flags.DEFINE_integer("random_seed", 0, "Subset, head initialisation and data order.")
flags.DEFINE_string("init_checkpoint", None,
                    "The encoder to fine-tune (default: all-MiniLM-L6-v2); e.g. a run_pretraining "
                    "--output_dir after task-adaptive pretraining (pass its --vocab_file).")
flags.DEFINE_string("vocab_file", None, "vocab.txt, when --init_checkpoint has none.")
flags.DEFINE_string("json", None, "Write every point's scores here.")
flags.DEFINE_string("plot", None, "Draw dev F1 against the learning rate to this PNG.")


def _grid():
    """`(learning_rate, warmup_proportion, num_train_epochs)` strings, in flag order."""
    return list(itertools.product(FLAGS.learning_rates, FLAGS.warmup_proportions,
                                  FLAGS.num_train_epochs))


def _point(lr, warmup, epochs, dev):
    out = os.path.join(FLAGS.output_dir, f"lr{lr}_warmup{warmup}_epochs{epochs}")
    args = [
        "keras_bert.cli.run_squad",
        f"--init_checkpoint={FLAGS.init_checkpoint or minilm_checkpoint()}",
        *([f"--vocab_file={FLAGS.vocab_file}"] if FLAGS.vocab_file else []),
        f"--train_file={os.path.join(FLAGS.data_dir, 'squad', 'train-v1.1-reconstructed.json.gz')}",
        f"--predict_file={dev}", "--do_train", "--do_predict",
        f"--max_seq_length={FLAGS.max_seq_length}", "--doc_stride=128", "--max_query_length=64",
        f"--max_train_examples={FLAGS.train_examples}", f"--num_train_epochs={epochs}",
        f"--train_batch_size={FLAGS.train_batch_size}", f"--learning_rate={lr}",
        f"--warmup_proportion={warmup}", f"--dtype_policy={FLAGS.dtype_policy}",
        f"--random_seed={FLAGS.random_seed}", "--iterations_per_loop=50",
        f"--output_dir={out}",
    ]
    return run_once(args, out, f"learning rate {lr}, warm-up {warmup}, {epochs} epochs")


def _plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for (warmup, epochs), group in itertools.groupby(
            sorted(rows, key=lambda r: (r["warmup_proportion"], r["num_train_epochs"],
                                        r["learning_rate"])),
            key=lambda r: (r["warmup_proportion"], r["num_train_epochs"])):
        group = list(group)
        ax.plot([r["learning_rate"] for r in group], [r["f1"] for r in group], "o-",
                label=f"warm-up {warmup:g}, {epochs:g} epoch(s)")
    ax.set_xscale("log")
    ax.set_xlabel("peak learning rate")
    ax.set_ylabel(f"dev F1 (first {FLAGS.dev_questions} questions)")
    ax.set_title(f"all-MiniLM-L6-v2 on {FLAGS.train_examples} SQuAD train questions, "
                 f"seq {FLAGS.max_seq_length}", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path + ".tmp.png", dpi=120)
    os.replace(path + ".tmp.png", path)
    print("Wrote", path)


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    try:
        grid = [(lr, w, e, float(lr), float(w), float(e)) for lr, w, e in _grid()]
    except ValueError as error:
        sys.exit(f"squad_sweep: the grid's flags must be numbers: {error}")
    dev = squad_dev_subset(FLAGS.data_dir, os.path.join(FLAGS.output_dir, "squad_dev_subset.json"),
                           FLAGS.dev_questions)
    summary = {"command": "python -m experiments.squad_sweep " + " ".join(sys.argv[1:]), "runs": []}
    for lr, warmup, epochs, lr_value, warmup_value, epochs_value in grid:
        scores = _point(lr, warmup, epochs, dev)
        row = {"learning_rate": lr_value, "warmup_proportion": warmup_value,
               "num_train_epochs": epochs_value, "exact_match": scores["exact_match"],
               "f1": scores["f1"], "num_questions": scores.get("num_questions")}
        summary["runs"].append(row)
        if FLAGS.json:
            write_json(FLAGS.json, summary)
        print(f"learning rate {lr}, warm-up {warmup}, {epochs} epoch(s): "
              f"EM {row['exact_match']:.2f}, F1 {row['f1']:.2f}", flush=True)
    print(sweep_table(summary["runs"]))
    if FLAGS.plot:
        _plot(summary["runs"], FLAGS.plot)


if __name__ == "__main__":
    usage.run(main)
