r"""One candidate alone in a fresh process: start-up phases, step times, resident memory.

    python -m benchmarks.probe --impl=keras_bert --config=mini --steps=1000 --rss_every=50

Prints one JSON line: seconds to import the framework and library, to build the pretraining
model, for the first training step (tracing and XLA compilation) and each later step; resident
memory (RSS) every `--rss_every` steps and at peak. A process of its own, because memory and
start-up cannot be told apart between frameworks sharing one; the HF probe never imports
TensorFlow.
"""

import importlib
import json
import resource
import time

_START = time.perf_counter()

from absl import app, flags  # noqa: E402

from benchmarks.configs import IMPLS  # noqa: E402
FLAGS = flags.FLAGS
flags.DEFINE_enum("impl", "keras_bert", IMPLS, "Which implementation to run.")
flags.DEFINE_string("config", "mini", "Benchmark config (benchmarks.configs).")
flags.DEFINE_integer("steps", 20, "Training steps after the first.")
flags.DEFINE_integer("rss_every", 0, "Record RSS every this many steps (0: only at the end).")
flags.DEFINE_integer("batch_size", 8, "Batch size.")
flags.DEFINE_integer("seq_length", 128, "Sequence length.")
flags.DEFINE_integer("threads", 2, "Intra-op threads.")


def rss_mb():
    """Resident memory now, from /proc (Linux)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _keras_step(impl, config, batch, labels):
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(FLAGS.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    importlib.import_module("keras_bert" if impl == "keras_bert" else "keras_hub")
    importlib.import_module("keras")  # keras_bert's names load with Keras (lazy_package.py)
    imported = time.perf_counter()
    from benchmarks import models, training_steps

    model = (models.our_pretrainer(config) if impl == "keras_bert"
             else models.KerasHubPretrainer(config))
    step = training_steps.keras_train_step(model, training_steps.keras_pretraining_loss, True)
    return imported, lambda: step(batch, labels)


def _torch_step(config, batch, labels):
    import torch

    importlib.import_module("transformers")
    torch.set_num_threads(FLAGS.threads)
    imported = time.perf_counter()
    from benchmarks import hf_models, training_steps

    model = hf_models.hf_model(config)
    step = training_steps.torch_train_step(
        model, hf_models.hf_forward, training_steps.torch_pretraining_loss
    )
    return imported, lambda: step(batch, labels)


def main(argv):
    from benchmarks import configs, inputs

    config = configs.bert_config(FLAGS.config)
    batch, labels = inputs.pretraining_batch(
        config["vocab_size"], FLAGS.batch_size, FLAGS.seq_length, max(1, FLAGS.seq_length * 15 // 100)
    )
    begin = time.perf_counter()
    if FLAGS.impl == "hf":
        imported, step = _torch_step(config, batch, labels)
    else:
        imported, step = _keras_step(FLAGS.impl, config, batch, labels)
    built = time.perf_counter()
    step()
    first = time.perf_counter()
    seconds, rss = [], [(0, rss_mb())]
    for i in range(1, FLAGS.steps + 1):
        start = time.perf_counter()
        step()
        seconds.append(time.perf_counter() - start)
        if FLAGS.rss_every and i % FLAGS.rss_every == 0:
            rss.append((i, rss_mb()))
    if rss[-1][0] != FLAGS.steps:
        rss.append((FLAGS.steps, rss_mb()))
    print(json.dumps({
        "impl": FLAGS.impl,
        "config": FLAGS.config,
        "batch_size": FLAGS.batch_size,
        "seq_length": FLAGS.seq_length,
        "interpreter_to_main_s": begin - _START,
        "import_s": imported - begin,
        "build_s": built - imported,
        "first_step_s": first - built,
        "step_s": seconds,
        "rss_mb": rss,
        "peak_rss_mb": peak_rss_mb(),
    }))


if __name__ == "__main__":
    app.run(main)
