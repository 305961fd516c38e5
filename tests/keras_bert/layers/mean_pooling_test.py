"""Tests for `MeanPooling`."""

import numpy as np

from keras_bert.layers.mean_pooling import MeanPooling
from tests.test_case import TestCase


class MeanPoolingTest(TestCase):
    def test_averages_real_tokens_only(self):
        x = np.random.default_rng(0).normal(size=(3, 7, 8)).astype("float32")
        mask = (np.arange(7)[None] < np.array([[7], [3], [1]])).astype("int32")
        expected = np.stack([x[i, : mask[i].sum()].mean(0) for i in range(3)])
        self.assertAllClose(MeanPooling()(x, mask), expected, atol=1e-6)
        x[mask == 0] = 1e6
        self.assertAllClose(MeanPooling()(x, mask), expected, atol=1e-6)

    def test_all_padding_row_is_zero_not_nan(self):
        out = np.asarray(MeanPooling()(np.ones((1, 3, 2), "float32"), np.zeros((1, 3), "int32")))
        self.assertAllClose(out, np.zeros((1, 2)), atol=0)

    def test_serialization(self):
        self.run_serialization_test(MeanPooling())
