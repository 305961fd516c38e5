"""Where a training tool runs and how it is seeded, and where it writes its results: the flags
and set-up run_pretraining and the fine-tuning CLIs (run_classifier, run_squad, run_ner) share.

`--distribution_strategy`, `--tpu`, `--num_cpu_devices` (split the CPU into logical devices, to
try `mirrored` on a CPU) and `--random_seed`. A tool calls `split_cpu()` before anything touches
TensorFlow's devices, then `strategy(devices)`; `write_json` writes a result file into the
tool's `--output_dir`, whole or not at all.
"""

import json
import os

from absl import flags

from keras_bert.atomic_files import atomic_open
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
# The flags defined here are the key flags of the tool that calls `define_flags`: its
# `--help` lists them with its own.
flags.disclaim_key_flags()


def define_flags(strategies, random_seed, seeded):
    """Defines the runtime flags.

    Args:
        strategies: the --distribution_strategy choices the tool's training loop supports.
        random_seed: --random_seed's default.
        seeded: what the seed sets, for --random_seed's help ("the head, dropout and data order").
    """
    flags.DEFINE_enum(
        "distribution_strategy", "one_device", list(strategies), "tf.distribute strategy."
    )
    flags.DEFINE_string("tpu", None, "TPU name or grpc:// address for --distribution_strategy=tpu.")
    flags.DEFINE_integer(
        "num_cpu_devices", 0,
        "Split the CPU into this many logical devices (to try `mirrored` on a CPU).",
    )
    flags.DEFINE_integer("random_seed", random_seed, f"Seed for {seeded}.")


def split_cpu():
    """Splits the CPU into --num_cpu_devices logical devices (when more than one) and returns
    their names, else None. Call it before anything else touches TensorFlow: the split cannot
    be made once TensorFlow has set up its devices."""
    if FLAGS.num_cpu_devices <= 1:
        return None
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * FLAGS.num_cpu_devices
    )
    return [f"/cpu:{i}" for i in range(FLAGS.num_cpu_devices)]


def strategy(devices):
    """The --distribution_strategy. `devices`: what `split_cpu()` returned (`mirrored` mirrors
    over them; the other strategies ignore them)."""
    from keras_bert.training.tf_distribute import get_distribution_strategy

    try:
        return get_distribution_strategy(
            FLAGS.distribution_strategy, devices=devices, tpu_address=FLAGS.tpu
        )
    except ValueError as e:
        raise usage.flag_error(e) from None


def write_json(name, value, **options):
    """Writes `value` as JSON (indent 1, `json.dump`'s `options`) to --output_dir/`name`, whole
    or not at all. Returns the path."""
    path = os.path.join(FLAGS.output_dir, name)
    with atomic_open(path) as f:
        json.dump(value, f, indent=1, **options)
    return path
