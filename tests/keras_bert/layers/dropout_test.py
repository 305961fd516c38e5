"""`Dropout`: Bernoulli(1 - rate) masks with 1/(1 - rate) scaling, on the XLA path and off it."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_bert.layers.dropout import Dropout

RATE = 0.1
SHAPE = (16, 128, 512)  # 1,048,576 draws: the keep fraction's sd is 0.0003


def _outputs(jit_compile, calls=2):
    layer = Dropout(RATE, seed=7)
    x = tf.ones(SHAPE)
    run = tf.function(lambda x: layer(x, training=True), jit_compile=jit_compile)
    return [run(x).numpy() for _ in range(calls)]


@pytest.mark.parametrize("jit_compile", [True, False])
def test_masks_keep_one_minus_rate_scale_the_kept_and_change_every_call(jit_compile):
    first, second = _outputs(jit_compile)
    # Off XLA the drop probability is quantised to 16 bits: round(0.1 * 65536) / 65536.
    rate = RATE if jit_compile else round(RATE * 65536) / 65536
    for out in (first, second):
        kept = out != 0
        assert abs(kept.mean() - (1 - RATE)) < 0.002  # 6 sd
        np.testing.assert_allclose(out[kept], 1.0 / (1 - rate), rtol=1e-6)
        assert abs(out.mean() - 1.0) < 0.003  # unbiased: E[out] = x
    # Fresh masks each step, agreeing only by chance (0.9^2 + 0.1^2 = 82 % of positions).
    agreement = ((first != 0) == (second != 0)).mean()
    assert abs(agreement - 0.82) < 0.003


@pytest.mark.parametrize("jit_compile", [True, False])
def test_masks_are_independent_of_position(jit_compile):
    (out,) = _outputs(jit_compile=jit_compile, calls=1)
    kept = out != 0
    # Per-row and per-column keep fractions scatter as binomials would, no stripes.
    for axis in (0, 1, 2):
        fractions = kept.mean(axis=tuple(a for a in range(3) if a != axis))
        n = kept.size / kept.shape[axis]
        assert np.abs(fractions - 0.9).max() < 6 * np.sqrt(0.09 / n)


def test_inference_and_rate_zero_pass_inputs_through():
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype("float32")
    np.testing.assert_array_equal(Dropout(RATE)(x, training=False), x)
    run = tf.function(lambda x: Dropout(0.0)(x, training=True), jit_compile=True)
    np.testing.assert_array_equal(run(x), x)


@pytest.mark.parametrize("jit_compile", [True, False])
def test_noise_shape_is_honoured(jit_compile):
    layer = Dropout(0.5, noise_shape=(None, 1, None), seed=3)
    run = tf.function(lambda x: layer(x, training=True), jit_compile=jit_compile)
    out = run(tf.ones((64, 5, 32)))
    out = out.numpy()
    # One mask per (batch, feature), shared along the sequence axis.
    np.testing.assert_array_equal(out, np.repeat(out[:, :1], 5, axis=1))


def test_serializes_as_a_keras_dropout():
    layer = Dropout(0.2, seed=5, name="dropout")
    clone = keras.layers.deserialize(keras.layers.serialize(layer))
    assert isinstance(clone, Dropout) and clone.rate == 0.2


@pytest.mark.parametrize("rate", [0.1, 0.5, 0.9])
def test_off_xla_keep_fraction_and_mean_follow_any_rate(rate):
    # An odd element count (one 16-bit half of the last 32-bit draw unused), eager and graph.
    x = tf.ones((7, 101, 997))
    layer = Dropout(rate, seed=11)
    for run in (lambda x: layer(x, training=True),
                tf.function(lambda x: layer(x, training=True))):
        out = run(x).numpy()
        assert out.shape == (7, 101, 997)
        kept = out != 0
        sd = np.sqrt(rate * (1 - rate) / kept.size)
        assert abs(kept.mean() - (1 - rate)) < 6 * sd
        # Unbiased: E[out] = 1, with the kept values' spread around it.
        assert abs(out.mean() - 1.0) < 6 * sd / (1 - rate)


def test_bfloat16_inputs_keep_their_dtype_and_are_unbiased():
    x = tf.ones(SHAPE, tf.bfloat16)
    layer = Dropout(RATE, seed=2, dtype="mixed_bfloat16")
    out = tf.function(lambda x: layer(x, training=True))(x)
    assert out.dtype == tf.bfloat16
    out = out.numpy().astype("float32")
    # The scale 65536 / 58982 rounds to bfloat16 (8 bits): 1.109375, as Keras's own dropout's
    # x * (1 / 0.9) does in bfloat16.
    np.testing.assert_array_equal(np.unique(out), [0.0, 1.109375])
