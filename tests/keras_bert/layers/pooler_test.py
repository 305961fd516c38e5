"""Tests for `Pooler`."""

import numpy as np

from keras_bert.layers.pooler import Pooler
from tests.test_case import TestCase


class PoolerTest(TestCase):
    def test_layer_contract(self):
        self.run_layer_test(
            Pooler(),
            (np.random.default_rng(0).normal(size=(3, 7, 8)).astype("float32"),),
            expected_output_shape=(3, 8),
            expected_num_weights=2,
        )

    def test_is_tanh_dense_of_the_first_position_only(self):
        layer = Pooler()
        x = np.random.default_rng(1).normal(size=(3, 7, 8)).astype("float32")
        out = np.asarray(layer(x))
        kernel, bias = layer.dense.kernel.numpy(), layer.dense.bias.numpy()
        self.assertAllClose(out, np.tanh(x[:, 0] @ kernel + bias), atol=1e-6)
        x[:, 1:] = 0.0
        self.assertAllClose(layer(x), out, atol=0)
