"""Tests for `BertEmbeddings`."""

import numpy as np
import pytest

from keras_bert.layers.bert_embeddings import BertEmbeddings
from tests.reference import numpy_bert
from tests.test_case import TestCase


class BertEmbeddingsTest(TestCase):
    def make_layer(self):
        return BertEmbeddings(23, 8, 16, 2, hidden_dropout_prob=0.0)

    def test_layer_contract(self):
        token_ids = np.arange(21).reshape(3, 7).astype("int32")
        self.run_layer_test(
            self.make_layer(),
            (token_ids, np.zeros((3, 7), "int32")),
            expected_output_shape=(3, 7, 8),
            # token, segment and position tables, LayerNorm gamma and beta.
            expected_num_weights=5,
        )

    def test_matches_numpy_sum_then_layer_norm(self):
        layer = self.make_layer()
        rng = np.random.default_rng(0)
        token_ids = rng.integers(0, 23, (3, 7)).astype("int32")
        segment_ids = rng.integers(0, 2, (3, 7)).astype("int32")
        layer(token_ids, segment_ids)
        for w in layer.weights:
            w.assign(rng.normal(size=w.shape).astype("float32"))
        expected = numpy_bert.layer_norm(
            layer.token_embedding.embeddings.numpy()[token_ids]
            + layer.segment_embedding.embeddings.numpy()[segment_ids]
            + layer.position_embeddings.numpy()[:7][None],
            layer.layer_norm.gamma.numpy(),
            layer.layer_norm.beta.numpy(),
        )
        self.assertAllClose(layer(token_ids, segment_ids), expected, atol=1e-5)

    def test_position_embeddings_are_sliced_to_the_input_length(self):
        layer = self.make_layer()
        short = layer(np.ones((1, 3), "int32"), np.zeros((1, 3), "int32"))
        full = layer(np.ones((1, 16), "int32"), np.zeros((1, 16), "int32"))
        self.assertAllClose(short, np.asarray(full)[:, :3], atol=1e-6)

    def test_input_longer_than_max_position_embeddings_is_a_clear_error(self):
        with pytest.raises(ValueError, match="exceeds max_position_embeddings=16"):
            self.make_layer()(np.ones((1, 17), "int32"), np.zeros((1, 17), "int32"))

    def test_config_saved_with_the_old_dropout_key_still_loads(self):
        # Before the argument took its bert_config name it was `dropout`.
        config = BertEmbeddings(23, 8, 16, 2, hidden_dropout_prob=0.3).get_config()
        config["dropout"] = config.pop("hidden_dropout_prob")
        self.assertEqual(BertEmbeddings.from_config(config).hidden_dropout_prob, 0.3)
