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

With `--learning_rate_grid=sst2:1e-4:2e-4:5e-4` each arm gets its own rate for that GLUE task:
the labelled examples a seed-`--selection_seed` run trains on (`--sst2_train_examples` of them)
are cut into a training part and a held-out `--selection_fraction`; every rate of the grid
trains on the first and is scored on the second (never on the dev set), and each arm's best
rate then runs every seed on all of those examples, scored on the dev set as usual.

`--imported_runs=squad:<folder>` reads SQuAD's runs from a lent GPU (tools/gpu_proof_call.sh:
the same recipe under JAX, minutes instead of ~3 hours on 2 cores), each checked against this
study's arm, seed, rate and epochs. `--arms=pretrained --random_arm_from=<earlier --json>`
reuses an earlier study's random arm where its recorded settings and bert_config.json equal
this one's: random init never reads the pretrained weights.
"""

import json
import os
import statistics

from absl import app
from absl import flags

from experiments.cli_runs import run_once, write_json
from keras_bert.atomic_files import atomic_open
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
ARMS = ("pretrained", "random")
GLUE = {"sst2": ("sst-2", "SST-2"), "mrpc": ("mrpc", "MRPC")}  # task: (--task_name, data folder)
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
    define("list", "learning_rate_grid", [],
           "task:rate:rate:...; for these GLUE tasks each arm runs at the rate of the grid that "
           "scores best on a held-out part of its training examples (not --learning_rates).")
    define("list", "imported_runs", [],
           "task:folder; this task's runs were made elsewhere and are read, not run: "
           "<folder>/<arm>_seed<k>/gpu_squad_results.json (squad only: tools/gpu_proof_call.sh, "
           "the same recipe under JAX on a lent GPU).")
    define("string", "random_arm_from", None,
           "With --arms=pretrained: take the random arm's runs from an earlier study's --json "
           "instead of running them again. Random init does not depend on the pretrained "
           "weights, so this is allowed only where that study's settings and bert_config.json "
           "equal this one's.")
    define("float", "selection_fraction", 0.2, "The held-out share of the training examples "
           "that picks each arm's rate (--learning_rate_grid).")
    define("integer", "selection_seed", 0, "The seed whose training examples are split to pick "
           "the rates (and the selection runs' fine-tuning seed).")
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


def task_grids(entries):
    """`["task:rate:rate", ...]` as `{task: [rate, ...]}` (GLUE tasks only); one-line errors."""
    grids = {}
    for entry in entries:
        task, *rates = entry.split(":")
        if task not in GLUE or len(rates) < 2:
            raise ValueError(f"--learning_rate_grid: {entry!r} is not task:rate:rate[:...] with a "
                             f"task of {list(GLUE)}.")
        try:
            grids[task] = [float(rate) for rate in rates]
        except ValueError:
            raise ValueError(f"--learning_rate_grid: {entry!r} holds a rate that is not a "
                             "number.") from None
    return grids


def imported_folders(entries):
    """`["task:folder", ...]` as `{task: folder}` (squad only); one-line errors."""
    folders = {}
    for entry in entries:
        task, sep, folder = entry.partition(":")
        if task != "squad" or not sep or not folder:
            raise ValueError(f"--imported_runs: {entry!r} is not squad:<folder> (only SQuAD's "
                             "runs come from elsewhere: tools/gpu_proof_call.sh).")
        folders[task] = folder
    return folders


def imported_run(folder, arm, seed, learning_rate, epochs):
    """The results of one SQuAD run of tools/gpu_proof_call.sh, checked against the settings this
    study would have run with: a run of another arm, seed, rate, length or one stopped short is
    refused in one line, never averaged in."""
    path = os.path.join(folder, f"{arm}_seed{seed}", "gpu_squad_results.json")
    if not os.path.exists(path):
        raise ValueError(f"--imported_runs: {path} is missing: run tools/gpu_proof_call.sh on the "
                         f"GPU machine and unpack its proof.tgz into {folder}.")
    with open(path) as f:
        results = json.load(f)
    expected = {"random_init": arm == "random", "random_seed": seed,
                "learning_rate": learning_rate, "num_train_epochs": epochs,
                "steps_done": results.get("steps")}
    wrong = {k: (results.get(k), v) for k, v in expected.items() if results.get(k) != v}
    if "eval" not in results:
        wrong["eval"] = (None, "the dev set's scores")
    if wrong:
        detail = ", ".join(f"{k}={got!r} (the study needs {want!r})"
                           for k, (got, want) in wrong.items())
        raise ValueError(f"--imported_runs: {path} is not this study's run: {detail}.")
    return dict(results["eval"], backend=results.get("backend"), imported_from=path)


# The flags that decide what a run does (not where its files go): an earlier study's random arm
# is reused only where these and the model's bert_config.json are equal.
SETTINGS = ("data_dir", "vocab_file", "seeds", "learning_rates", "epochs", "learning_rate_grid",
            "selection_fraction", "selection_seed", "squad_train_examples",
            "squad_max_seq_length", "squad_doc_stride", "sst2_train_examples", "max_seq_length",
            "train_batch_size", "dtype_policy")


def study_settings(options):
    """What the study's runs depend on besides the pretrained weights: its flags of `SETTINGS`
    and the model's bert_config.json."""
    with open(os.path.join(options.init_checkpoint, "bert_config.json")) as f:
        config = json.load(f)
    return {"flags": {name: getattr(options, name) for name in SETTINGS}, "bert_config": config}


def reused_random_arm(options, path, tasks):
    """`(runs, selection)` of the random arm of the earlier study at `path` (its --json), for
    `tasks`; one-line errors where it is not this study's random arm."""
    if not os.path.exists(path):
        raise ValueError(f"--random_arm_from={path} does not exist: give an earlier study's --json.")
    with open(path) as f:
        earlier = json.load(f)
    ours = study_settings(options)
    theirs = earlier.get("settings")
    if theirs is None:
        raise ValueError(f"--random_arm_from={path} records no settings (written before they were "
                         "recorded): re-run that study's command once to rewrite its --json.")
    differ = sorted(k for k in ours["flags"] if ours["flags"][k] != theirs["flags"].get(k))
    if ours["bert_config"] != theirs["bert_config"]:
        differ.append("bert_config.json")
    if differ:
        raise ValueError(f"--random_arm_from={path}: its {', '.join(differ)} differ from this "
                         "study's, so its random arm is not this one's.")
    runs = [r for r in earlier["runs"] if r["arm"] == "random" and r["task"] in tasks]
    missing = sorted(set(tasks) - {r["task"] for r in runs})
    if missing:
        raise ValueError(f"--random_arm_from={path} has no random-arm runs of {missing}.")
    selection = {task: {"chosen": {"random": picked["chosen"]["random"]},
                        "held_out": {"random": {float(rate): value for rate, value
                                                in picked["held_out"]["random"].items()}}}
                 for task, picked in earlier.get("selection", {}).items() if task in tasks}
    return [dict(r, reused_from=path) for r in runs], selection


def run_args(options, task, arm, seed, out, learning_rate, epochs, glue_dir=None):
    """`python -m` arguments of one run; `options`: the parsed flags. `glue_dir`: a GLUE task's
    data folder in place of the shared one, trained on whole (the rate-selection split)."""
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
    subset = task == "sst2" and glue_dir is None
    return ["keras_bert.cli.run_classifier", *common, "--do_eval", f"--task_name={GLUE[task][0]}",
            f"--data_dir={glue_dir or os.path.join(data, 'glue', GLUE[task][1])}",
            f"--max_seq_length={options.max_seq_length}",
            *([f"--max_train_examples={options.sst2_train_examples}"] if subset else [])]


def selection_split(options, task):
    """Writes (once) the rate-selection data of a GLUE task: the training rows a seed
    `--selection_seed` run uses (`seeded_subset`, as `run_classifier --max_train_examples`),
    a seeded `--selection_fraction` of them as `dev.tsv` and the rest as `train.tsv`, in file
    order under the task's header. Returns the folder."""
    import numpy as np

    from keras_bert.data.data_files import find_data_file
    from keras_bert.data.seeded_subset import seeded_subset
    from keras_bert.data.tasks.classification_data import GLUE_TASKS
    from keras_bert.data.tasks.classification_data import tsv_lines

    folder = os.path.join(options.output_dir, "selection", task, "data")
    if os.path.exists(os.path.join(folder, "dev.tsv")):
        return folder
    spec = GLUE_TASKS[GLUE[task][0]]
    path = find_data_file(os.path.join(options.data_dir, "glue", GLUE[task][1]), spec.train_file)
    lines = [line for _, line in tsv_lines(path)]
    header, rows = (lines[:1], lines[1:]) if spec.header else ([], lines)
    size = options.sst2_train_examples if task == "sst2" else None
    used = seeded_subset(len(rows), size, options.selection_seed)
    held = int(round(len(used) * options.selection_fraction))
    if not 0 < held < len(used):
        raise ValueError(f"--selection_fraction={options.selection_fraction} holds out {held} of "
                         f"{len(used)} examples: give a fraction that leaves some on each side.")
    order = np.random.default_rng(options.selection_seed).permutation(len(used))
    parts = {"dev.tsv": np.sort(used[order[:held]]), "train.tsv": np.sort(used[order[held:]])}
    os.makedirs(folder, exist_ok=True)
    for name in ("train.tsv", "dev.tsv"):  # dev.tsv last: its presence marks a finished split
        with atomic_open(os.path.join(folder, name)) as f:
            f.write("\n".join(header + [rows[i] for i in parts[name]]) + "\n")
    return folder


def select_rates(options, task, grid, epochs):
    """Each arm's rate of `grid`: the best held-out score of `selection_split`, one run per arm
    and rate (seed `--selection_seed`). Returns `{arm: rate}` and `{arm: {rate: score}}`."""
    data = selection_split(options, task)
    chosen, scores = {}, {}
    for arm in options.arms:
        scores[arm] = {}
        for rate in grid:
            out = os.path.join(options.output_dir, "selection", task, f"{arm}_lr{rate:g}")
            results = run_once(run_args(options, task, arm, options.selection_seed, out, rate,
                                        epochs, glue_dir=data), out,
                               f"{task} {arm} rate {rate:g} (selection)")
            scores[arm][rate] = score(task, results)
            print(f"{task} {arm} rate {rate:g}: {scores[arm][rate]:.2f} held out", flush=True)
        chosen[arm] = max(grid, key=lambda rate: (scores[arm][rate], -rate))  # ties: the lower
    return chosen, scores


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


def selection_markdown(selection, fraction):
    """What `select_rates` chose: a line per task and arm, every rate's held-out score."""
    lines = []
    for task, picked in selection.items():
        lines.append(f"\n{TASKS[task][2]}: each arm's rate chosen on a held-out "
                     f"{fraction:.0%} of its training examples (never the dev set):\n")
        for arm, rate in picked["chosen"].items():
            tried = ", ".join(f"{r:g}: {v:.2f}" for r, v in picked["held_out"][arm].items())
            lines.append(f"- {arm}: **{rate:g}** (held-out score by rate: {tried})")
    return "\n".join(lines) + ("\n" if lines else "")


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
        imported = imported_folders(FLAGS.imported_runs)
        grids = task_grids(FLAGS.learning_rate_grid)
        if grids and not 0.0 < FLAGS.selection_fraction < 1.0:
            raise ValueError(f"--selection_fraction={FLAGS.selection_fraction}: give the held-out "
                             "share as a number between 0 and 1, such as 0.2.")
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
        reused, reused_selection = [], {}
        if FLAGS.random_arm_from:
            if list(FLAGS.arms) != ["pretrained"]:
                raise ValueError("--random_arm_from takes the random arm from an earlier study: "
                                 "run this one with --arms=pretrained.")
            reused, reused_selection = reused_random_arm(FLAGS, FLAGS.random_arm_from, FLAGS.tasks)
    except ValueError as e:
        raise app.UsageError(str(e)) from None

    scores, runs, selection = {}, [], {}
    for task in FLAGS.tasks:
        rates = {arm: learning_rates[task] for arm in FLAGS.arms}
        if task in grids:
            try:
                rates, held_out = select_rates(FLAGS, task, grids[task], epochs[task])
            except ValueError as e:  # too few examples on one side of the split
                raise app.UsageError(str(e)) from None
            selection[task] = {"chosen": rates, "held_out": held_out}
        for arm in FLAGS.arms:
            # Runs at the task's --learning_rates keep their folder; other rates get their own.
            where = task if rates[arm] == learning_rates[task] else f"{task}_lr{rates[arm]:g}"
            for seed in seeds:
                out = os.path.join(FLAGS.output_dir, where, f"{arm}_seed{seed}")
                if task in imported:
                    try:
                        results = imported_run(imported[task], arm, seed, rates[arm],
                                               epochs[task])
                    except ValueError as e:
                        raise app.UsageError(str(e)) from None
                else:
                    results = run_once(
                        run_args(FLAGS, task, arm, seed, out, rates[arm], epochs[task]), out,
                        f"{task} {arm} seed {seed}",
                        results_file="test_results.json" if task == "conll" else "eval_results.json")
                value = score(task, results)
                scores.setdefault(task, {}).setdefault(arm, []).append(value)
                runs.append({"task": task, "arm": arm, "seed": seed, "score": value,
                             "learning_rate": rates[arm], "results": results})
                print(f"{task} {arm} seed {seed}: {value:.2f}", flush=True)
        for run in (r for r in reused if r["task"] == task):
            scores.setdefault(task, {}).setdefault("random", []).append(run["score"])
            runs.append(run)
            print(f"{task} random seed {run['seed']}: {run['score']:.2f} (from "
                  f"{FLAGS.random_arm_from})", flush=True)
        if task in reused_selection:
            for key in ("chosen", "held_out"):
                selection[task][key].update(reused_selection[task][key])
    rows = summarize(scores)
    text = markdown(rows) + selection_markdown(selection, FLAGS.selection_fraction)
    if FLAGS.random_arm_from:
        text += (f"\nThe random arm's runs are those of {FLAGS.random_arm_from} (same settings and "
                 "bert_config.json; random init does not read the pretrained weights).\n")
    for task, folder in imported.items():
        backends = sorted({r["results"]["backend"] for r in runs if r["task"] == task})
        text += (f"\n{task}'s runs were made by tools/gpu_proof_call.sh (tools/gpu_squad.py, "
                 f"Keras on {', '.join(map(str, backends))}, the same recipe) and read from "
                 f"{folder}.\n")
    print(text, end="")
    if FLAGS.json:
        write_json(FLAGS.json, {"init_checkpoint": FLAGS.init_checkpoint, "runs": runs,
                                "summary": rows, "learning_rates": learning_rates,
                                "selection": selection, "epochs": epochs,
                                "imported_runs": imported, "settings": study_settings(FLAGS),
                                "random_arm_from": FLAGS.random_arm_from})
    if FLAGS.markdown:
        with atomic_open(FLAGS.markdown) as f:
            f.write(text)
    if FLAGS.plot:
        plot(rows, FLAGS.plot)


if __name__ == "__main__":
    define_flags()
    flags.mark_flags_as_required(["init_checkpoint", "vocab_file"])
    usage.run(main)
