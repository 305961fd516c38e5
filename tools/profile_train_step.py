r"""Where a train step's time goes, op by op, from TensorFlow's profiler.

    pip install -e '.[profile]'        # xprof: turns the profiler's trace into op statistics
    python tools/profile_train_step.py --config=minilm --seq_length=384 --batch_size=16 \
        --dtype_policy=mixed_bfloat16 --nojit_compile

Times keras_bert's span-head train step (the benchmark's `keras_train_step`, synthetic
full-length batches), traces `--steps` steps with `tf.profiler`, and prints the self time per op
type and the elementwise ops by name (layer numbers folded), largest first.
"""

import collections
import glob
import json
import os
import re
import tempfile
import time

from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
flags.DEFINE_string("config", "minilm", "Benchmark model shape (benchmarks.configs).")
flags.DEFINE_integer("seq_length", 384, "Sequence length.")
flags.DEFINE_integer("batch_size", 16, "Batch size.")
flags.DEFINE_enum("dtype_policy", "mixed_bfloat16", ["float32", "mixed_bfloat16"], "Precision.")
flags.DEFINE_bool("jit_compile", False, "XLA-compile the forward and backward pass.")
flags.DEFINE_integer("steps", 2, "Profiled steps (after two untimed ones).")
flags.DEFINE_integer("top", 25, "Rows per table.")

ELEMENTWISE = ("Mul", "Cast", "AddV2", "Sub", "SelectV2", "_MklBatchMatMulV2")


def _op_stats(logdir):
    from xprof.convert import raw_to_tool_data

    paths = glob.glob(os.path.join(logdir, "**", "*.xplane.pb"), recursive=True)
    data, _ = raw_to_tool_data.xspace_to_tool_data(paths, "framework_op_stats", {})
    table = json.loads(data)
    table = table[0] if isinstance(table, list) else table
    columns = [c["id"] for c in table["cols"]]
    rows = [[cell["v"] if cell else None for cell in row["c"]] for row in table["rows"]]
    return [dict(zip(columns, row)) for row in rows]


def main(argv):
    del argv
    import keras
    import tensorflow as tf

    import keras_bert
    from benchmarks import configs, training_steps
    from benchmarks.suites.precision import span_batch

    tf.config.threading.set_intra_op_parallelism_threads(2)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    config = configs.bert_config(FLAGS.config)
    inputs, labels = span_batch(config["vocab_size"], FLAGS.batch_size, FLAGS.seq_length)
    keras.utils.set_random_seed(0)
    model = keras_bert.BertQuestionAnswerer(keras_bert.BertEncoder.from_bert_config(
        keras_bert.BertConfig(**config), dtype=FLAGS.dtype_policy))
    step = training_steps.keras_train_step(model, training_steps.keras_span_loss,
                                           jit_compile=FLAGS.jit_compile)
    for _ in range(2):
        step(inputs, labels)
    start = time.perf_counter()
    step(inputs, labels)
    print(f"one step: {time.perf_counter() - start:.3f} s")
    with tempfile.TemporaryDirectory() as logdir:
        tf.profiler.experimental.start(logdir)
        for _ in range(FLAGS.steps):
            step(inputs, labels)
        tf.profiler.experimental.stop()
        rows = _op_stats(logdir)
    by_type, by_name = collections.Counter(), collections.Counter()
    for row in rows:
        by_type[row["type"]] += row["total_self_time"]
        if row["type"] in ELEMENTWISE:
            name = re.sub(r"transformer_layer_\d+(_\d+)?", "L", row["operation"])
            by_name[(row["type"], name.replace("StatefulPartitionedCall/", ""))] += (
                row["total_self_time"])
    total = sum(by_type.values())
    print(f"self time over {FLAGS.steps} steps: {total / 1000:.0f} ms")
    print("\n| op type | ms per step | share |\n|---|---|---|")
    for name, us in by_type.most_common(FLAGS.top):
        print(f"| {name} | {us / 1000 / FLAGS.steps:.1f} | {100 * us / total:.1f} % |")
    print("\n| op | name | ms per step |\n|---|---|---|")
    for (kind, name), us in by_name.most_common(FLAGS.top):
        print(f"| {kind} | {name[-100:]} | {us / 1000 / FLAGS.steps:.1f} |")


if __name__ == "__main__":
    usage.run(main)
