"""`float32_softmax`: float32 arithmetic for bfloat16 scores, forward and backward, on every path."""

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.layers.float32_softmax import float32_softmax

SHAPE = (2, 3, 40, 40)


def _scores(seed=0):
    rng = np.random.default_rng(seed)
    # Attention-like logits, a few masked keys at -10000 as SelfAttention adds them.
    x = rng.standard_normal(SHAPE) * 3
    x[..., -5:] -= 10000.0
    return x


def _reference(x, upstream):
    """float64 NumPy softmax of `x` and its vector-Jacobian product with `upstream`."""
    e = np.exp(x - x.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)
    return p, p * (upstream - (upstream * p).sum(-1, keepdims=True))


@pytest.mark.parametrize("jit_compile", [False, True])
def test_bfloat16_probabilities_are_the_float32_ones_rounded_once(jit_compile):
    x = tf.cast(tf.constant(_scores(), tf.float32), tf.bfloat16)
    run = tf.function(lambda x: float32_softmax(x), jit_compile=jit_compile)
    probs = run(x)
    assert probs.dtype == tf.bfloat16
    # Oracle 1: TensorFlow's float32 softmax of the same bf16 values, rounded to bf16.
    expected = tf.cast(tf.nn.softmax(tf.cast(x, tf.float32)), tf.bfloat16)
    np.testing.assert_array_equal(probs.numpy().astype("float32"),
                                  expected.numpy().astype("float32"))
    # Oracle 2: float64 NumPy, within bf16's rounding (8 bits: relative 2**-8).
    exact, _ = _reference(x.numpy().astype("float64"), np.zeros(SHAPE))
    np.testing.assert_allclose(probs.numpy().astype("float64"), exact, rtol=2**-8, atol=1e-30)


@pytest.mark.parametrize("jit_compile", [False, True])
def test_bfloat16_gradient_is_within_bfloat16_noise_of_float64(jit_compile):
    x = tf.cast(tf.constant(_scores(1), tf.float32), tf.bfloat16)
    upstream = tf.cast(tf.random.stateless_normal(SHAPE, [3, 4]), tf.bfloat16)

    def grad(x, g):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = float32_softmax(x)
        return tape.gradient(y, x, output_gradients=g)

    got = tf.function(grad, jit_compile=jit_compile)(x, upstream).numpy().astype("float64")
    _, exact = _reference(x.numpy().astype("float64"), upstream.numpy().astype("float64"))
    rms = np.sqrt(np.mean((got - exact) ** 2) / np.mean(exact**2))
    # Measured 0.36 % (bf16 elementwise gradient) and 0.17 % (through float32) on 28M
    # MiniLM-shaped scores; bfloat16's own rounding is 0.39 %. The bound is 1.4x the larger
    # (it was 0.01, 2.8x, with no stated basis).
    assert rms < 0.005, rms


def test_float32_inputs_are_a_plain_softmax():
    x = tf.constant(_scores(2), tf.float32)
    np.testing.assert_allclose(float32_softmax(x).numpy(), tf.nn.softmax(x).numpy(), rtol=1e-6)
