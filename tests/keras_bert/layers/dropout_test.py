"""`Dropout`: Bernoulli(1 - rate) masks with 1/(1 - rate) scaling, on the XLA path and off it."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_bert.layers.dropout import Dropout, _in_xla_context

RATE = 0.1
SHAPE = (16, 128, 512)  # 1,048,576 draws: the keep fraction's sd is 0.0003


def _outputs(jit_compile, calls=2):
    layer = Dropout(RATE, seed=7)
    x = tf.ones(SHAPE)
    run = tf.function(lambda x: layer(x, training=True), jit_compile=jit_compile)
    return [run(x).numpy() for _ in range(calls)]


def test_the_xla_context_is_seen_only_inside_jit_compiled_functions():
    seen = {}

    def probe(key):
        seen[key] = _in_xla_context()
        return tf.constant(0.0)

    tf.function(lambda: probe("xla"), jit_compile=True)()
    tf.function(lambda: probe("graph"))()
    probe("eager")
    assert seen == {"xla": True, "graph": False, "eager": False}


@pytest.mark.parametrize("jit_compile", [True, False])
def test_masks_keep_one_minus_rate_scale_the_kept_and_change_every_call(jit_compile):
    first, second = _outputs(jit_compile)
    for out in (first, second):
        kept = out != 0
        assert abs(kept.mean() - (1 - RATE)) < 0.002  # 6 sd
        np.testing.assert_allclose(out[kept], 1.0 / (1 - RATE), rtol=1e-6)
        assert abs(out.mean() - 1.0) < 0.003  # unbiased: E[out] = x
    # Fresh masks each step, agreeing only by chance (0.9^2 + 0.1^2 = 82 % of positions).
    agreement = ((first != 0) == (second != 0)).mean()
    assert abs(agreement - 0.82) < 0.003


def test_masks_are_independent_of_position():
    (out,) = _outputs(jit_compile=True, calls=1)
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


def test_noise_shape_is_honoured_under_xla():
    layer = Dropout(0.5, noise_shape=(None, 1, None), seed=3)
    out = tf.function(lambda x: layer(x, training=True), jit_compile=True)(tf.ones((64, 5, 32)))
    out = out.numpy()
    # One mask per (batch, feature), shared along the sequence axis.
    np.testing.assert_array_equal(out, np.repeat(out[:, :1], 5, axis=1))


def test_serializes_as_a_keras_dropout():
    layer = Dropout(0.2, seed=5, name="dropout")
    clone = keras.layers.deserialize(keras.layers.serialize(layer))
    assert isinstance(clone, Dropout) and clone.rate == 0.2
