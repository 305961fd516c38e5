"""Start-up time and peak memory: each implementation in fresh processes (`benchmarks.probe`),
repeated `rounds` times in rotating order: import, build, first training step (tracing and XLA
compilation), and the peak resident memory of a short pretraining run. Then the wall time of
the commands a user starts with (`import keras_bert`, a CLI's `--help`) against `import keras_hub`,
each in fresh processes, in rotating order."""

import time

import json
import os
import subprocess
import sys

import numpy as np

from benchmarks.configs import IMPLS

NAMES = {"keras_bert": "keras_bert (XLA)", "keras-hub": "keras-hub (XLA)", "hf": "HF PyTorch"}
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repo


def probe(impl, config, steps, rss_every=0, batch_size=8, seq_length=128, threads=2):
    """Runs `benchmarks.probe` in a fresh interpreter; returns its JSON result."""
    command = [sys.executable, "-m", "benchmarks.probe", f"--impl={impl}", f"--config={config}",
               f"--steps={steps}", f"--rss_every={rss_every}", f"--batch_size={batch_size}",
               f"--seq_length={seq_length}", f"--threads={threads}"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=_ROOT,
                            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    if result.returncode:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


# The commands timed by `command_startup`: (name, argv after the interpreter, extra env).
COMMANDS = (
    ("import keras_bert", ["-c", "import keras_bert"], {}),
    ("import keras_bert (KERAS_BACKEND=jax)", ["-c", "import keras_bert"], {"KERAS_BACKEND": "jax"}),
    ("run_classifier --help", ["-m", "keras_bert.cli.run_classifier", "--help"], {}),
    ("keras_bert.export.cli --help", ["-m", "keras_bert.export.cli", "--help"], {}),
    ("import keras_bert; keras_bert.BertEncoder", ["-c", "import keras_bert; keras_bert.BertEncoder"], {}),
    ("import keras_hub", ["-c", "import keras_hub"], {}),
)


def command_startup(rounds, log=print):
    """Median wall seconds of each command in `COMMANDS`, `rounds` fresh processes each."""
    seconds = {name: [] for name, _, _ in COMMANDS}
    for round_index in range(rounds):
        shift = round_index % len(COMMANDS)
        for name, argv, env in COMMANDS[shift:] + COMMANDS[:shift]:
            begin = time.perf_counter()
            done = subprocess.run([sys.executable, *argv], capture_output=True, cwd=_ROOT,
                                  env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", **env))
            seconds[name].append(time.perf_counter() - begin)
            if done.returncode not in (0, 1):  # absl's --help exits 1 in older versions
                raise RuntimeError(f"{name} failed:\n{done.stderr.decode()[-3000:]}")
        log(f"  command start-up round {round_index + 1}/{rounds} done")
    reference = float(np.median(seconds["import keras_hub"]))
    return {
        "suite": "startup",
        "config": "-",
        "case": f"commands a user starts with, medians of {rounds} fresh processes",
        "metric": "command_startup",
        "rows": [{"name": name, "wall_s": float(np.median(times)), "min_s": min(times),
                  "max_s": max(times), "vs_keras_hub": float(np.median(times)) / reference,
                  "runs": times} for name, times in seconds.items()],
    }


def run(config_name, options, log=print):
    runs = {impl: [] for impl in IMPLS}
    for round_index in range(options.rounds):
        order = list(IMPLS[round_index % len(IMPLS):] + IMPLS[:round_index % len(IMPLS)])
        for impl in order:
            runs[impl].append(probe(impl, config_name, steps=10, threads=options.threads))
        log(f"  startup round {round_index + 1}/{options.rounds} done")
    rows = []
    for impl, results in runs.items():
        def median(key):
            return float(np.median([r[key] for r in results]))

        rows.append({
            "name": NAMES[impl],
            "import_s": median("import_s"),
            "build_s": median("build_s"),
            "first_step_s": median("first_step_s"),
            "time_to_first_step_s": float(np.median(
                [r["import_s"] + r["build_s"] + r["first_step_s"] for r in results])),
            "step_s": float(np.median([np.median(r["step_s"]) for r in results])),
            "peak_rss_mb": median("peak_rss_mb"),
            "runs": results,
        })
    return [command_startup(options.rounds, log), {
        "suite": "startup",
        "config": config_name,
        "case": f"pretraining, batch 8, seq 128, medians of {options.rounds} fresh processes",
        "metric": "startup",
        "rows": rows,
    }]
