"""`--dtype_policy` and `--jit_compile`: the precision and compilation flags every training and
inference tool shares (run_pretraining, run_squad, run_classifier, run_ner, extract_features)."""

from absl import app
from absl import flags

from keras_bert.training.precision import DTYPE_POLICIES

FLAGS = flags.FLAGS
# The flags defined here are the key flags of the tool that calls `define_flags`: its
# `--help` lists them with its own.
flags.disclaim_key_flags()


def define_flags():
    flags.DEFINE_enum(
        "dtype_policy", "auto", list(DTYPE_POLICIES),
        "Keras dtype policy. auto: mixed_bfloat16 where the CPU has AMX-BF16 or AVX512-BF16 "
        "units (or on a GPU/TPU), else float32. Weights, optimizer state, checkpoints and "
        "exports stay float32 under every policy.",
    )
    flags.DEFINE_bool(
        "jit_compile", None,
        "XLA-compile the training step. Default: the faster measured path for the precision "
        "(XLA in float32 and on GPU/TPU; TensorFlow's oneDNN graph for bf16 on a CPU, where "
        "XLA does not use the bf16 units).",
    )


def apply():
    """Sets Keras's global dtype policy from --dtype_policy (call it before building models).

    Returns `(policy, jit_compile)`: the policy name in force and whether to XLA-compile.
    """
    import keras

    from keras_bert.training.precision import PrecisionError
    from keras_bert.training.precision import default_jit_compile
    from keras_bert.training.precision import describe_machine
    from keras_bert.training.precision import resolve_dtype_policy

    machine = describe_machine()
    try:
        policy = resolve_dtype_policy(FLAGS.dtype_policy, machine)
    except PrecisionError as e:
        raise app.UsageError(f"--dtype_policy: {e}") from None
    keras.config.set_dtype_policy(policy)
    jit_compile = FLAGS.jit_compile
    if jit_compile is None:
        jit_compile = default_jit_compile(policy, machine)
    return policy, jit_compile
