"""Tests for `get_activation`."""

import math

import numpy as np
import pytest

from keras_bert.layers.activations import get_activation


def test_gelu_is_the_exact_erf_form():
    x = np.linspace(-6, 6, 101).astype("float32")
    expected = [0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0))) for v in x.astype("float64")]
    np.testing.assert_allclose(np.asarray(get_activation("gelu")(x)), expected, atol=1e-6)


def test_gelu_new_is_the_tanh_approximation_and_differs_from_gelu():
    x = np.linspace(-6, 6, 101).astype("float32")
    t = x.astype("float64")
    expected = 0.5 * t * (1 + np.tanh(math.sqrt(2 / math.pi) * (t + 0.044715 * t**3)))
    approx = np.asarray(get_activation("gelu_new")(x))
    np.testing.assert_allclose(approx, expected, atol=1e-6)
    # The two forms differ by up to ~2e-4 here: mixing them up breaks 1e-5 parity.
    assert np.abs(approx - np.asarray(get_activation("gelu")(x))).max() > 1e-4


def test_unknown_activation_names_the_choices():
    with pytest.raises(ValueError, match="Unknown hidden_act 'swish2'.*'gelu'"):
        get_activation("swish2")
