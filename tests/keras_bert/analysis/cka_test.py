"""`linear_cka`: invariances, golden values, bad input."""

import numpy as np
import pytest

from keras_bert.analysis.cka import linear_cka


def test_self_rotation_and_scaling_give_one():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 16))
    rotation, _ = np.linalg.qr(rng.normal(size=(16, 16)))  # orthogonal
    assert linear_cka(x, x) == pytest.approx(1.0, abs=1e-12)
    assert linear_cka(x, x @ rotation) == pytest.approx(1.0, abs=1e-12)
    assert linear_cka(x, 7.5 * x @ rotation + 3.0) == pytest.approx(1.0, abs=1e-12)  # scale + shift


def test_unrelated_is_low_and_partial_is_between():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2000, 8))
    y = rng.normal(size=(2000, 8))
    # Independent isotropic features: CKA ~ d / n-ish noise level.
    assert linear_cka(x, y) < 0.02
    # Keeping half of the (isotropic) dimensions: ||X_k^T X||^2 / (||X_k^T X_k|| ||X^T X||) = sqrt(k/d).
    assert linear_cka(x, x[:, :4]) == pytest.approx(np.sqrt(4 / 8), abs=0.03)


def test_not_symmetric_in_width_but_symmetric_in_arguments():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(50, 6)), rng.normal(size=(50, 3))
    assert linear_cka(x, y) == pytest.approx(linear_cka(y, x), abs=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match="same n"):
        linear_cka(np.ones((5, 2)), np.ones((6, 2)))
    with pytest.raises(ValueError, match="constant"):
        linear_cka(np.ones((5, 2)), np.random.default_rng(0).normal(size=(5, 2)))
