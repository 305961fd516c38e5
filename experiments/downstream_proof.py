r"""Does our pretraining teach the model anything? (issue 29) Fine-tunes a pretrained encoder and
a random initialization of the same shape on the same tasks, budgets and seeds.
Makes: docs/pretraining.md, "The downstream proof, scripted": docs/runs/downstream_proof.json / .md
and docs/images/downstream_proof.png (not yet run in full).
Rerun: the command below.

    .venv/bin/python -m experiments.downstream_proof --init_checkpoint=runs/pretrain_budget/model \
        --vocab_file=../shared/data/vocab/bert-base-uncased-vocab.txt --seeds=0,1,2 \
        --json=docs/runs/downstream_proof.json --markdown=docs/runs/downstream_proof.md \
        --plot=docs/images/downstream_proof.png

Every (task, arm, seed) is one run of the package's own fine-tuning CLI (`run_squad`,
`run_ner`, `run_classifier`) in its own folder under `--output_dir`; finished runs are read,
not repeated, and a stopped one resumes from its checkpoints, so re-running the command
continues the study. The two arms differ only in `--init_checkpoint`: the random arm gets the
pretrained run's `bert_config.json` and the same vocabulary. Scores:

- squad: official v1.1 F1 on the whole dev set, after training on a seeded subset of the
  reconstructed train set (`--squad_train_examples` questions);
- conll: CoNLL-2003 test entity F1 (the best checkpoint on valid);
- sst2: GLUE SST-2 dev accuracy after `--sst2_train_examples` labelled sentences;
- mrpc: GLUE MRPC dev accuracy (F1 kept beside it).

The table gives mean +- sample standard deviation per arm, the gain, and whether the gain
clears two standard deviations of the seeds (the larger arm's).
"""

import os
import statistics

from absl import app
from absl import flags

from experiments.cli_runs import run_once, write_json
from keras_bert.atomic_files import atomic_open
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
ARMS = ("pretrained", "random")
# task: (metric shown, percent scale of the CLI's number, label)
TASKS = {
    "squad": ("f1", 1.0, "SQuAD v1.1 dev F1"),
    "conll": ("f1", 1.0, "CoNLL-2003 test entity F1"),
    "sst2": ("accuracy", 100.0, "SST-2 dev accuracy"),
    "mrpc": ("accuracy", 100.0, "MRPC dev accuracy"),
}


def define_flags(flag_values=flags.FLAGS):
    """The study's flags, defined on `flag_values` (the CLI: the global FLAGS; tests: their own)."""
    def define(kind, *args):
        getattr(flags, f"DEFINE_{kind}")(*args, flag_values=flag_values)

    define("string", "init_checkpoint", None, "The pretraining run (run_pretraining --output_dir).")
    define("string", "vocab_file", None, "The vocabulary it was pretrained with.")
    define("string", "output_dir", "runs/downstream_proof", "Where every run's folder goes.")
    define("string", "data_dir", "../shared/data", "The shared data folder.")
    define("list", "tasks", list(TASKS), f"Of {list(TASKS)}.")
    define("list", "arms", list(ARMS), f"Of {list(ARMS)}.")
    define("list", "seeds", ["0", "1", "2"], "Fine-tuning seeds (head, dropout, data order).")
    define("list", "learning_rates", ["squad:5e-4", "conll:5e-4", "sst2:2e-4", "mrpc:2e-4"],
           "task:peak learning rate, for both arms.")
    define("list", "epochs", ["squad:2", "conll:3", "sst2:10", "mrpc:5"], "task:epochs, both arms.")
    define("integer", "squad_train_examples", 20000, "SQuAD training questions (a seeded subset).")
    define("integer", "squad_max_seq_length", 384,
           "SQuAD window length (128 where pretraining saw only 128 positions).")
    define("integer", "squad_doc_stride", 128, "SQuAD stride between windows of one context.")
    define("integer", "sst2_train_examples", 1000, "SST-2 labelled sentences.")
    define("integer", "max_seq_length", 128, "conll, sst2, mrpc input length.")
    define("integer", "train_batch_size", 32, "Every task's training batch.")
    define("string", "dtype_policy", "auto", "Precision of every run (auto: bf16 where the CPU has it).")
    define("string", "json", None, "Write every run's score and the summary here.")
    define("string", "markdown", None, "Write the summary table here.")
    define("string", "plot", None, "Draw the arms' means and standard deviations to this PNG.")


def task_values(entries, kind):
    """`["task:value", ...]` as `{task: float}`; one-line errors for anything else."""
    values = {}
    for entry in entries:
        task, sep, value = entry.partition(":")
        if not sep or task not in TASKS:
            raise ValueError(f"--{kind}: {entry!r} is not task:value with a task of {list(TASKS)}.")
        try:
            values[task] = float(value)
        except ValueError:
            raise ValueError(f"--{kind}: {entry!r}: {value!r} is not a number.") from None
    return values


def run_args(options, task, arm, seed, out, learning_rate, epochs):
    """`python -m` arguments of one run; `options`: the parsed flags."""
    data = options.data_dir
    config = os.path.join(options.init_checkpoint, "bert_config.json")
    common = [
        f"--vocab_file={options.vocab_file}", f"--output_dir={out}", "--do_train",
        f"--learning_rate={learning_rate}", f"--num_train_epochs={epochs}",
        f"--random_seed={seed}", f"--dtype_policy={options.dtype_policy}",
        f"--train_batch_size={options.train_batch_size}",
        (f"--init_checkpoint={options.init_checkpoint}" if arm == "pretrained"
         else f"--bert_config_file={config}"),
    ]
    if task == "squad":
        return ["keras_bert.cli.run_squad", *common,
                f"--train_file={os.path.join(data, 'squad', 'train-v1.1-reconstructed.json.gz')}",
                f"--predict_file={os.path.join(data, 'squad', 'dev-v1.1.json.gz')}", "--do_predict",
                f"--max_train_examples={options.squad_train_examples}",
                f"--max_seq_length={options.squad_max_seq_length}",
                f"--doc_stride={options.squad_doc_stride}", "--iterations_per_loop=100"]
    if task == "conll":
        return ["keras_bert.cli.run_ner", *common, "--do_predict",
                f"--data_dir={os.path.join(data, 'conll2003')}",
                f"--max_seq_length={options.max_seq_length}"]
    glue = {"sst2": ("sst-2", "SST-2"), "mrpc": ("mrpc", "MRPC")}[task]
    return ["keras_bert.cli.run_classifier", *common, "--do_eval", f"--task_name={glue[0]}",
            f"--data_dir={os.path.join(data, 'glue', glue[1])}",
            f"--max_seq_length={options.max_seq_length}",
            *([f"--max_train_examples={options.sst2_train_examples}"] if task == "sst2" else [])]


def score(task, results):
    """The task's number, in percent, from a run's results."""
    metric, scale, _ = TASKS[task]
    return results[metric] * scale


def summarize(scores):
    """`{task: {arm: [score per seed]}}` -> a row per task: each arm's mean and sample standard
    deviation, the gain of pretraining and whether it clears 2 standard deviations (the larger
    arm's)."""
    rows = []
    for task, arms in scores.items():
        row = {"task": task, "label": TASKS[task][2]}
        for arm, values in arms.items():
            row[arm] = {"mean": statistics.fmean(values),
                        "std": statistics.stdev(values) if len(values) > 1 else 0.0,
                        "n": len(values)}
        if all(arm in row for arm in ARMS):
            gain = row["pretrained"]["mean"] - row["random"]["mean"]
            spread = max(row[arm]["std"] for arm in ARMS)
            row["gain"] = gain
            row["beyond_2_std"] = (min(row[arm]["n"] for arm in ARMS) > 1
                                   and abs(gain) > 2 * spread)
        rows.append(row)
    return rows


def markdown(rows):
    """The summary as a Markdown table."""
    def cell(row, arm):
        return f"{row[arm]['mean']:.2f} ± {row[arm]['std']:.2f} (n={row[arm]['n']})" if arm in row else "-"

    lines = ["| task | pretrained | random init | gain | beyond 2 std |", "|---|---|---|---|---|"]
    for row in rows:
        gain = f"{row['gain']:+.2f}" if "gain" in row else "-"
        beyond = ("yes" if row["beyond_2_std"] else "no") if "gain" in row else "-"
        lines.append(f"| {row['label']} | {cell(row, 'pretrained')} | {cell(row, 'random')} | "
                     f"{gain} | {beyond} |")
    return "\n".join(lines) + "\n"


def plot(rows, path):
    """Bars of each arm's mean with its standard deviation, a group per task."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    width = 0.38
    for i, arm in enumerate(ARMS):
        xs = [j + (i - 0.5) * width for j, row in enumerate(rows) if arm in row]
        means = [row[arm]["mean"] for row in rows if arm in row]
        stds = [row[arm]["std"] for row in rows if arm in row]
        ax.bar(xs, means, width, yerr=stds, capsize=3,
               label="pretrained (ours, from scratch)" if arm == "pretrained" else "random init")
    ax.set_xticks(range(len(rows)), [row["label"] for row in rows], fontsize=8)
    ax.set_ylabel("score (%)")
    ax.legend(fontsize=8)
    ax.set_title("Fine-tuned from our pretraining vs random init (mean ± std over seeds)", fontsize=9)
    fig.tight_layout()
    partial = path + ".tmp.png"
    fig.savefig(partial, dpi=120)
    os.replace(partial, path)


def main(argv):
    del argv
    try:
        learning_rates = task_values(FLAGS.learning_rates, "learning_rates")
        epochs = task_values(FLAGS.epochs, "epochs")
        unknown = sorted(set(FLAGS.tasks) - set(TASKS)) + sorted(set(FLAGS.arms) - set(ARMS))
        if unknown:
            raise ValueError(f"{unknown}: tasks are {list(TASKS)}, arms {list(ARMS)}.")
        missing = [t for t in FLAGS.tasks if t not in learning_rates or t not in epochs]
        if missing:
            raise ValueError(f"{missing}: give each task a --learning_rates and an --epochs entry.")
        if not os.path.exists(os.path.join(FLAGS.init_checkpoint, "bert_config.json")):
            raise ValueError(f"--init_checkpoint={FLAGS.init_checkpoint} has no bert_config.json: "
                             "pass a run_pretraining --output_dir.")
        seeds = [int(s) for s in FLAGS.seeds]
    except ValueError as e:
        raise app.UsageError(str(e)) from None

    scores, runs = {}, []
    for task in FLAGS.tasks:
        for arm in FLAGS.arms:
            for seed in seeds:
                out = os.path.join(FLAGS.output_dir, task, f"{arm}_seed{seed}")
                results = run_once(
                    run_args(FLAGS, task, arm, seed, out, learning_rates[task], epochs[task]), out,
                    f"{task} {arm} seed {seed}",
                    results_file="test_results.json" if task == "conll" else "eval_results.json")
                value = score(task, results)
                scores.setdefault(task, {}).setdefault(arm, []).append(value)
                runs.append({"task": task, "arm": arm, "seed": seed, "score": value,
                             "results": results})
                print(f"{task} {arm} seed {seed}: {value:.2f}", flush=True)
    rows = summarize(scores)
    text = markdown(rows)
    print(text, end="")
    if FLAGS.json:
        write_json(FLAGS.json, {"init_checkpoint": FLAGS.init_checkpoint, "runs": runs,
                                "summary": rows, "learning_rates": learning_rates,
                                "epochs": epochs})
    if FLAGS.markdown:
        with atomic_open(FLAGS.markdown) as f:
            f.write(text)
    if FLAGS.plot:
        plot(rows, FLAGS.plot)


if __name__ == "__main__":
    define_flags()
    flags.mark_flags_as_required(["init_checkpoint", "vocab_file"])
    usage.run(main)
