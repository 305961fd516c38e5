"""Tests for `MaskedLMHead`."""

import keras
import numpy as np

from keras_bert.layers.masked_lm_head import MaskedLMHead
from tests.reference import numpy_bert
from tests.test_case import TestCase


class MaskedLMHeadTest(TestCase):
    def make_head(self):
        embedding = keras.layers.Embedding(23, 8)
        embedding.build((None,))
        return embedding, MaskedLMHead(embedding)

    def test_layer_contract(self):
        _, head = self.make_head()
        rng = np.random.default_rng(0)
        self.run_layer_test(
            head,
            (rng.normal(size=(3, 7, 8)).astype("float32"), rng.integers(0, 7, (3, 5)).astype("int32")),
            expected_output_shape=(3, 5, 23),
            # dense kernel + bias, LayerNorm gamma + beta, output bias, the tied embedding.
            expected_num_weights=6,
        )

    def test_matches_numpy_at_masked_positions_with_tied_embedding(self):
        embedding, head = self.make_head()
        rng = np.random.default_rng(1)
        x = rng.normal(size=(3, 7, 8)).astype("float32")
        positions = rng.integers(0, 7, (3, 5)).astype("int32")
        head(x, positions)
        for w in head.weights:
            w.assign(rng.normal(size=w.shape).astype("float32"))
        weights = numpy_bert.as_float64(
            {
                "bert/embeddings/word_embeddings": embedding.embeddings.numpy(),
                "cls/predictions/transform/dense/kernel": head.dense.kernel.numpy(),
                "cls/predictions/transform/dense/bias": head.dense.bias.numpy(),
                "cls/predictions/transform/LayerNorm/gamma": head.layer_norm.gamma.numpy(),
                "cls/predictions/transform/LayerNorm/beta": head.layer_norm.beta.numpy(),
                "cls/predictions/output_bias": head.output_bias.numpy(),
                "cls/seq_relationship/output_weights": np.zeros((2, 8)),
                "cls/seq_relationship/output_bias": np.zeros(2),
            }
        )
        expected, _ = numpy_bert.pretraining_heads(
            weights, {"hidden_act": "gelu"}, x.astype("float64"), x[:, 0], positions
        )
        self.assertAllClose(head(x, positions), expected, atol=1e-4)

    def test_output_projection_is_the_embedding_matrix(self):
        embedding, head = self.make_head()
        x = np.random.default_rng(2).normal(size=(1, 7, 8)).astype("float32")
        positions = np.array([[0, 3]], "int32")
        before = np.asarray(head(x, positions))
        embedding.embeddings.assign(embedding.embeddings.numpy() * 2.0)
        # Doubling the tied embedding doubles the logits (the output bias is zero at init).
        self.assertAllClose(head(x, positions), 2.0 * before, atol=1e-5)

    def test_only_masked_positions_matter(self):
        _, head = self.make_head()
        x = np.random.default_rng(3).normal(size=(1, 7, 8)).astype("float32")
        positions = np.array([[1, 4]], "int32")
        before = np.asarray(head(x, positions))
        x[:, [0, 2, 3, 5, 6]] = 99.0
        self.assertAllClose(head(x, positions), before, atol=0)
