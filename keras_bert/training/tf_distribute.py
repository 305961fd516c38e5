"""tf.distribute strategies by name (`--distribution_strategy`), and batch-size checks."""

import tensorflow as tf

from keras_bert.api_export import keras_bert_export

STRATEGIES = ("one_device", "mirrored", "multi_worker_mirrored", "tpu")


@keras_bert_export("keras_bert.training.get_distribution_strategy")
def get_distribution_strategy(name="one_device", devices=None, tpu_address=None):
    """A `tf.distribute.Strategy` by name.

    Args:
        name: `one_device` (the first GPU, else the CPU), `mirrored` (all local GPUs, or
            `devices`), `multi_worker_mirrored` (hosts from the `TF_CONFIG` environment
            variable; each host runs the same command), `tpu` (a Cloud TPU at `tpu_address`,
            or the local one).
        devices: optional list of device names for `mirrored` (e.g. two logical CPUs).
        tpu_address: str for `tpu`: a name, `grpc://` address or `local`.
    """
    if name == "one_device":
        gpus = tf.config.list_logical_devices("GPU")
        return tf.distribute.OneDeviceStrategy(gpus[0].name if gpus else "/cpu:0")
    if name == "mirrored":
        return tf.distribute.MirroredStrategy(devices)
    if name == "multi_worker_mirrored":
        return tf.distribute.MultiWorkerMirroredStrategy()
    if name == "tpu":
        try:
            resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=tpu_address or "")
            tf.config.experimental_connect_to_cluster(resolver)
            tf.tpu.experimental.initialize_tpu_system(resolver)
        except (ValueError, tf.errors.OpError) as e:
            raise ValueError(
                f"The tpu strategy found no TPU at {tpu_address or '(local)'!r} "
                f"({str(e).splitlines()[0]}). Pass the TPU's name or grpc:// address as "
                "`tpu_address`, on a TPU VM."
            ) from None
        return tf.distribute.TPUStrategy(resolver)
    raise ValueError(f"Unknown distribution strategy {name!r}; use one of {STRATEGIES}.")


def per_replica_batch_size(train_batch_size, strategy, gradient_accumulation_steps=1):
    """The batch one replica computes per micro-step; errors if it does not divide evenly.

    `train_batch_size` is the global batch of one optimizer step.
    """
    divisor = strategy.num_replicas_in_sync * gradient_accumulation_steps
    if train_batch_size % divisor:
        raise ValueError(
            f"train_batch_size={train_batch_size} must be divisible by the number of replicas "
            f"({strategy.num_replicas_in_sync}) times `gradient_accumulation_steps` "
            f"({gradient_accumulation_steps}). Use e.g. {(train_batch_size // divisor + 1) * divisor}."
        )
    return train_batch_size // divisor


def mirrors_cpu_devices(strategy):
    """Whether `strategy` mirrors over more than one logical CPU device.

    XLA cannot compile such a step: each replica's cluster reads variables held by another CPU
    device ("Trying to access resource ... located in device CPU:1 from device CPU:0", TensorFlow's
    XLA known issue tfvariable_on_a_different_device), so training there runs without XLA.
    """
    if strategy is None or strategy.num_replicas_in_sync < 2:
        return False
    devices = getattr(strategy.extended, "worker_devices", ())
    return bool(devices) and all(
        tf.DeviceSpec.from_string(d).device_type == "CPU" for d in devices)


def jit_compile_under(strategy, jit_compile, requested=None):
    """`jit_compile` for training under `strategy`: off where it mirrors over logical CPU devices.

    `requested`: the caller's own setting (None = unset). An explicit True there is an error,
    since XLA cannot compile that step; an unset default quietly becomes False.
    """
    if not jit_compile or not mirrors_cpu_devices(strategy):
        return jit_compile
    if requested:
        raise ValueError(
            "jit_compile=True cannot train mirrored over logical CPU devices (XLA reads one "
            "replica's variables from another device); leave jit_compile unset (or false).")
    return False
