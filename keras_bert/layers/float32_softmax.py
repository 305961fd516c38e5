"""`float32_softmax`: softmax computed in float32 whatever the input dtype, output in the input's."""

import os

from keras import ops

from keras_bert.cpu_flags import has_bfloat16_units
from keras_bert.layers.xla_context import in_xla_context


def _onednn_bfloat16(x):
    """Whether TensorFlow's oneDNN softmax will take `x` (bfloat16, TF graph without XLA, a CPU
    with bfloat16 units).

    oneDNN computes a bfloat16 softmax in float32 and rounds once at the end: the result is
    bit for bit the float32 softmax cast to bfloat16 (`float32_softmax_test` checks it), without
    the two casts of the [batch, heads, seq, seq] scores and probabilities. On a CPU without
    bfloat16 units (an AMD Zen 3, AVX2 only) TensorFlow's bfloat16 softmax is Eigen's, in
    bfloat16 arithmetic (measured: 63 % of the probabilities off by up to 7 %), so there the
    explicit float32 path is taken.
    """
    import keras

    return (
        keras.backend.backend() == "tensorflow"
        and ops.dtype(x) == "bfloat16"
        and os.environ.get("TF_ENABLE_ONEDNN_OPTS", "1") != "0"
        and not in_xla_context()
        and has_bfloat16_units()
    )


def float32_softmax(x, axis=-1):
    """`softmax(x)` computed in float32, returned in `x`'s dtype (bfloat16 under mixed precision).

    Exponentials and sums in float32 keep attention probabilities accurate under mixed
    precision. The usual way, cast to float32, softmax, cast back, costs two passes over the
    largest tensor of the model, [batch, heads, seq, seq], and a float32 backward pass over it.
    On TensorFlow's CPU graph with oneDNN this hands the bfloat16 scores to oneDNN's softmax,
    which does the float32 arithmetic internally and rounds once: the same probabilities, bit
    for bit. Its gradient, `p * (g - sum(g * p))`, is then TensorFlow's, on bfloat16 tensors
    (measured against a float64 reference: 0.36 % rms relative error, against 0.17 % through
    float32; bfloat16 itself carries 0.39 %). That took 7 % off a MiniLM-shaped bf16 train step
    at seq 384 (docs/benchmarks.md); convergence at the float32 score is checked in
    docs/precision.md.

    Args:
        x: float tensor.
        axis: int, the axis to normalise over. Defaults to -1.

    Returns:
        a tensor of `x`'s shape and dtype.
    """
    if _onednn_bfloat16(x):
        import tensorflow as tf

        return tf.nn.softmax(x, axis=axis)
    return ops.cast(ops.softmax(ops.cast(x, "float32"), axis=axis), x.dtype)
