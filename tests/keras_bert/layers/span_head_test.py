"""Tests for `SpanHead`."""

import numpy as np

from keras_bert.layers.span_head import SpanHead
from tests.test_case import TestCase


class SpanHeadTest(TestCase):
    def test_layer_contract(self):
        self.run_layer_test(
            SpanHead(),
            (np.random.default_rng(0).normal(size=(3, 7, 8)).astype("float32"),),
            expected_output_shape=((3, 7), (3, 7)),
            expected_num_weights=2,
        )

    def test_start_and_end_are_the_two_output_columns(self):
        head = SpanHead()
        x = np.random.default_rng(1).normal(size=(3, 7, 8)).astype("float32")
        start, end = head(x)
        logits = x @ head.dense.kernel.numpy() + head.dense.bias.numpy()
        self.assertAllClose(start, logits[..., 0], atol=1e-5)
        self.assertAllClose(end, logits[..., 1], atol=1e-5)
