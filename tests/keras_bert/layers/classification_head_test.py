"""Tests for `ClassificationHead`."""

import numpy as np

from keras_bert.layers.classification_head import ClassificationHead
from tests.test_case import TestCase


class ClassificationHeadTest(TestCase):
    def test_layer_contract_on_pooled_output(self):
        self.run_layer_test(
            ClassificationHead(num_classes=4, dropout=0.0),
            (np.random.default_rng(0).normal(size=(3, 8)).astype("float32"),),
            expected_output_shape=(3, 4),
            expected_num_weights=2,
        )

    def test_layer_contract_per_token(self):
        self.run_layer_test(
            ClassificationHead(num_classes=5, dropout=0.0),
            (np.random.default_rng(0).normal(size=(3, 7, 8)).astype("float32"),),
            expected_output_shape=(3, 7, 5),
            expected_num_weights=2,
        )

    def test_is_linear_at_inference_and_drops_out_in_training(self):
        head = ClassificationHead(num_classes=4, dropout=0.5)
        x = np.random.default_rng(1).normal(size=(64, 8)).astype("float32")
        out = np.asarray(head(x))
        self.assertAllClose(out, x @ head.dense.kernel.numpy() + head.dense.bias.numpy(), atol=1e-5)
        self.assertFalse(np.allclose(np.asarray(head(x, training=True)), out))
