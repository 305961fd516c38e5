r"""Runs benchmark suites: keras_bert against keras-hub, HF transformers and the matmul rate.

    python -m benchmarks.run --suite=pretrain --config=mini --json=runs/bench/pretrain_mini.json

Candidates run interleaved round by round (see `harness`), on the same inputs and, where models
are compared, the same weights (checked before timing); in this one process, except the
precision suite's models, each in a process of its own unless `--noisolate` (`workers`). Prints a
Markdown table per case; `--json` keeps every timing, `--plot` draws the ratios.

Unless `--notune_allocator`, the process re-executes itself once with allocator settings that
stop memory from being returned to the OS and faulted back in at every step, for every
framework alike (see docs/benchmarks.md).
"""

import json
import os
import platform
import sys
import time

from absl import app, flags

from benchmarks.workers import set_threads

SUITES = ("pretrain", "finetune", "precision", "inference", "tflite", "startup", "memory",
          "document_qa", "document_qa_browser")

FLAGS = flags.FLAGS
flags.DEFINE_list("suite", ["pretrain"], f"Suites to run, from {SUITES}.")
flags.DEFINE_string("config", "mini", "Model shape: tiny, mini, minilm or base (benchmarks.configs).")
flags.DEFINE_string("json", None, "Write all results and timings to this JSON file.")
flags.DEFINE_string("plot", None, "Draw the ratios to this PNG.")
flags.DEFINE_integer("rounds", 5, "Timed rounds (one call of every candidate each).")
flags.DEFINE_integer("warmup", 1, "Untimed calls of each candidate before the rounds.")
flags.DEFINE_float("settle_ms", 300, "Untimed pause before each timed call, so one library's "
                   "spinning thread pool does not slow the next candidate (see harness).")
flags.DEFINE_list("seq_lengths", ["128", "512"], "Sequence lengths of the fixed-shape suites.")
flags.DEFINE_integer("batch_size", 0, "Batch size; 0 takes each suite's per-config default.")
flags.DEFINE_bool("without_xla", False, "Also time the Keras candidates without jit_compile.")
flags.DEFINE_list("tasks", ["sst2", "squad"], "Fine-tuning suite tasks: sst2, squad.")
flags.DEFINE_string(
    "data_dir", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..",
                             "shared", "data"),
    "The shared data folder (SST-2, SQuAD, vocabularies) the fine-tuning suite reads.")
flags.DEFINE_bool("op_profile", False, "TFLite suite: also time every operator of float32 and "
                  "full_int8 on its own (benchmarks.tflite_ops; minutes).")
flags.DEFINE_integer("memory_steps", 1000, "Training steps of the memory suite's long run.")
flags.DEFINE_integer("threads", 2, "Intra-op threads for TensorFlow and PyTorch.")
flags.DEFINE_bool("tune_allocator", True, "Re-run with the tuned allocator settings.")
flags.DEFINE_list(
    "dtype_policies", ["float32"],
    "Precisions to run every suite in, one after the other (float32, mixed_bfloat16, auto): "
    "Keras candidates under the Keras dtype policy, PyTorch under torch.autocast to bf16. With "
    "two, the report adds each candidate's bf16/float32 ratio. The precision suite always "
    "runs both.")
flags.DEFINE_list(
    "keras_hub_paths", ["float32_xla", "float32", "bf16_xla", "bf16"],
    "Precision suite: keras-hub's paths to time (each is a trained model in memory; at BERT-base "
    "all four with keras_bert's four do not fit in 24 GB).")
flags.DEFINE_list(
    "keras_bert_paths", ["float32_xla", "float32", "bf16_xla", "bf16"],
    "Precision suite: keras_bert's paths to time; float32_xla (the step it took by default "
    "before it chose precision per machine) is the reference and must be among them.")
flags.DEFINE_list("torch_paths", ["float32", "bf16"],
                  "Precision suite: HF PyTorch's paths: float32, bf16 (autocast), bf16_compile "
                  "(autocast through torch.compile; compiles for minutes).")
flags.DEFINE_bool("isolate", True,
                  "Precision suite: each model candidate in a process of its own, as a user "
                  "would train it (benchmarks.workers); --noisolate puts all in this one.")
flags.DEFINE_integer("matmul_size", 2048,
                     "Precision suite: side of the square float32 and bf16 matmuls timed next "
                     "to the steps (the hardware's rate; a smaller one only for quick checks: "
                     "a 2048 bf16 matmul takes a minute where the CPU has no bf16 units).")

# glibc: keep freed memory in the process instead of unmapping it (every later step would
# fault it back in page by page); TensorFlow: its BFC allocator on the CPU instead of malloc.
TUNED_ALLOCATOR = {
    "MALLOC_MMAP_THRESHOLD_": "33554432",
    "MALLOC_TRIM_THRESHOLD_": "17179869184",
    "MALLOC_TOP_PAD_": "268435456",
    "TF_CPU_ALLOCATOR_USE_BFC": "true",
}
_ENVIRONMENT_KEYS = tuple(TUNED_ALLOCATOR) + ("TF_ENABLE_ONEDNN_OPTS", "OMP_NUM_THREADS")


class Options:
    """The suites' settings, from the flags (or built directly by tests)."""

    def __init__(self, rounds=5, warmup=1, seq_lengths=(128, 512), batch_size=0,
                 without_xla=False, threads=2, tasks=("sst2", "squad"), data_dir=None,
                 memory_steps=1000, op_profile=False, dtype_policies=("float32",),
                 keras_hub_paths=("float32_xla", "float32", "bf16_xla", "bf16"), settle_s=0.3,
                 keras_bert_paths=("float32_xla", "float32", "bf16_xla", "bf16"),
                 torch_paths=("float32", "bf16"), isolate=True, matmul_size=2048):
        self.rounds = rounds
        self.warmup = warmup
        self.seq_lengths = [int(s) for s in seq_lengths]
        self.batch_size = batch_size
        self.without_xla = without_xla
        self.threads = threads
        self.tasks = list(tasks)
        self.data_dir = data_dir
        self.memory_steps = memory_steps
        self.op_profile = op_profile
        self.keras_bert_paths = list(keras_bert_paths)
        self.torch_paths = list(torch_paths)
        self.isolate = isolate
        self.matmul_size = matmul_size
        self.keras_hub_paths = list(keras_hub_paths)
        self.dtype_policies = list(dtype_policies)
        self.dtype_policy = self.dtype_policies[0]  # the one a suite is running in
        self.settle_s = settle_s


def machine():
    """What the numbers were measured on."""
    import tensorflow as tf
    import torch

    from keras_bert.training.precision import describe_machine
    from keras_bert.training.precision import resolve_dtype_policy

    precision = describe_machine()
    import keras
    import keras_hub
    import transformers

    return {
        "cpu": precision["cpu"],
        "bf16_units": precision["bf16_units"],
        "fp16_units": precision["fp16_units"],
        "default_dtype_policy": resolve_dtype_policy("auto", precision, log=None),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "keras_hub": keras_hub.__version__,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "environment": {k: os.environ.get(k) for k in _ENVIRONMENT_KEYS},
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
    }


def resolve_policies(names):
    """`--dtype_policies` as Keras policy names (`auto` resolved for this machine); a precision
    the machine has no units for raises `PrecisionError`."""
    from keras_bert.training.precision import resolve_dtype_policy

    policies = []
    for name in names:
        policy = resolve_dtype_policy(name, log=None)
        if policy not in ("float32", "mixed_bfloat16"):
            raise ValueError(f"--dtype_policies: {name} is not benchmarked; use float32, "
                             "mixed_bfloat16 or auto.")
        if policy not in policies:
            policies.append(policy)
    return policies


def run_suites(suites, config, options, log=print):
    """Runs `suites` on `config` in each of `options.dtype_policies`; returns the result dicts
    (each tagged with its `dtype_policy`)."""
    import importlib

    import keras

    unknown = [s for s in suites if s not in SUITES]
    if unknown:
        raise ValueError(f"Unknown suite(s) {unknown}; choose from {list(SUITES)}.")
    set_threads(options.threads)
    results = []
    for index, policy in enumerate(options.dtype_policies):
        options.dtype_policy = policy
        keras.config.set_dtype_policy(policy)
        try:
            for suite in suites:
                if suite == "precision" and index > 0:
                    continue  # it times both precisions itself
                module = importlib.import_module(f"benchmarks.suites.{suite}")
                for result in module.run(config, options, log):
                    result.setdefault("dtype_policy", policy)
                    if len(options.dtype_policies) > 1 and suite != "precision":
                        result["case"] += f" · {policy}"
                    results.append(result)
        finally:
            keras.config.set_dtype_policy("float32")
    return results


def _reexec_with_tuned_allocator(argv):
    missing = {k: v for k, v in TUNED_ALLOCATOR.items() if os.environ.get(k) != v}
    if missing:
        os.execve(sys.executable, [sys.executable, "-m", "benchmarks.run", *argv[1:]],
                  dict(os.environ, **missing))


def main(argv):
    from absl import logging

    logging.set_verbosity(logging.WARNING)  # TensorFlow's export logs every asset it writes
    if FLAGS.tune_allocator:
        _reexec_with_tuned_allocator(sys.argv)
    from benchmarks import configs, report

    unknown = [s for s in FLAGS.suite if s not in SUITES]
    set_threads(FLAGS.threads)  # before anything starts TensorFlow (the precision check does)
    try:
        configs.bert_config(FLAGS.config)  # unknown names fail before anything is built
        if unknown:
            raise ValueError(f"Unknown suite(s) {unknown}; choose from {list(SUITES)}.")
        policies = resolve_policies(FLAGS.dtype_policies)  # PrecisionError is a ValueError
        from benchmarks.suites.precision import PATHS, TORCH_PATHS

        for flag, names, known in (("keras_hub_paths", FLAGS.keras_hub_paths, PATHS),
                                   ("keras_bert_paths", FLAGS.keras_bert_paths, PATHS),
                                   ("torch_paths", FLAGS.torch_paths, TORCH_PATHS)):
            bad = [p for p in names if p not in known]
            if bad:
                raise ValueError(f"--{flag}: {bad} not among {list(known)}.")
        if "float32_xla" not in FLAGS.keras_bert_paths:
            raise ValueError("--keras_bert_paths must include float32_xla: it is the reference "
                             "every ratio is taken against.")
        if FLAGS.matmul_size < 1:
            raise ValueError(f"--matmul_size={FLAGS.matmul_size}: use 1 or more.")
        if FLAGS.settle_ms < 0:
            raise ValueError(f"--settle_ms={FLAGS.settle_ms:g}: use 0 (no pause) or more.")
    except ValueError as error:
        sys.exit(f"benchmarks.run: {error}")
    options = Options(FLAGS.rounds, FLAGS.warmup, FLAGS.seq_lengths, FLAGS.batch_size,
                      FLAGS.without_xla, FLAGS.threads, FLAGS.tasks, FLAGS.data_dir,
                      FLAGS.memory_steps, FLAGS.op_profile, policies, FLAGS.keras_hub_paths,
                      FLAGS.settle_ms / 1000.0, FLAGS.keras_bert_paths, FLAGS.torch_paths,
                      FLAGS.isolate, FLAGS.matmul_size)
    try:
        results = run_suites(FLAGS.suite, FLAGS.config, options)
    except FileNotFoundError as error:  # the finetune suite's data, Chromium
        sys.exit(f"benchmarks.run: {error}")
    print()
    print(report.report(results))
    if FLAGS.json:
        os.makedirs(os.path.dirname(os.path.abspath(FLAGS.json)), exist_ok=True)
        with open(FLAGS.json, "w") as f:
            command = "python -m benchmarks.run " + " ".join(sys.argv[1:])
            json.dump({"command": command, "machine": machine(), "results": results}, f, indent=1)
        print(f"Wrote {FLAGS.json}")
    if FLAGS.plot:
        for path in report.plot(results, FLAGS.plot):
            print(f"Wrote {path}")


if __name__ == "__main__":
    app.run(main)
