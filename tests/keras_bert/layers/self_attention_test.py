"""Tests for `SelfAttention`."""

import numpy as np

from keras_bert.layers.self_attention import SelfAttention
from tests.reference import numpy_bert
from tests.test_case import TestCase


def numpy_attention(layer, x, padding_mask, attention_mask=None):
    weights = {}
    for name, dense in (("query", layer.query_dense), ("key", layer.key_dense), ("value", layer.value_dense)):
        weights[f"self/{name}/kernel"] = dense.kernel.numpy()
        weights[f"self/{name}/bias"] = dense.bias.numpy()
    return numpy_bert.attention(
        numpy_bert.as_float64(weights), "self", x, padding_mask, layer.num_attention_heads,
        attention_mask=attention_mask,
    )


class SelfAttentionTest(TestCase):
    def test_layer_contract(self):
        self.run_layer_test(
            SelfAttention(num_attention_heads=2, attention_probs_dropout_prob=0.0),
            (np.random.default_rng(0).normal(size=(3, 7, 8)).astype("float32"),),
            expected_output_shape=(3, 7, 8),
            expected_num_weights=6,
            gradient_free=("key/bias",),
        )

    def test_matches_numpy_attention_with_padding(self):
        layer = SelfAttention(num_attention_heads=2, attention_probs_dropout_prob=0.0)
        rng = np.random.default_rng(1)
        x = rng.normal(size=(3, 7, 8)).astype("float32")
        padding_mask = (np.arange(7)[None] < np.array([[7], [4], [1]])).astype("int32")
        layer(x)
        for w in layer.weights:
            w.assign(rng.normal(size=w.shape).astype("float32"))
        self.assertAllClose(
            layer(x, padding_mask=padding_mask),
            numpy_attention(layer, x.astype("float64"), padding_mask),
            atol=1e-5,
        )

    def test_padded_keys_get_no_attention(self):
        layer = SelfAttention(num_attention_heads=2, attention_probs_dropout_prob=0.0)
        rng = np.random.default_rng(2)
        x = rng.normal(size=(1, 7, 8)).astype("float32")
        padding_mask = np.array([[1, 1, 1, 0, 0, 0, 0]], "int32")
        changed = x.copy()
        changed[:, 3:] = rng.normal(size=(1, 4, 8)) * 100.0
        out = np.asarray(layer(x, padding_mask=padding_mask))
        out_changed = np.asarray(layer(changed, padding_mask=padding_mask))
        self.assertAllClose(out[:, :3], out_changed[:, :3], atol=1e-6)

    def test_rejects_width_not_divisible_by_heads(self):
        with self.assertRaisesRegex(ValueError, "not a multiple of num_attention_heads=3"):
            SelfAttention(num_attention_heads=3)(np.ones((1, 2, 8), "float32"))

    def test_attention_mask_matches_numpy(self):
        layer = SelfAttention(num_attention_heads=2, attention_probs_dropout_prob=0.0)
        rng = np.random.default_rng(3)
        x = rng.normal(size=(2, 6, 8)).astype("float32")
        padding_mask = (np.arange(6)[None] < np.array([[6], [4]])).astype("int32")
        allowed = (rng.random((2, 6, 6)) < 0.6) | np.eye(6, dtype=bool)[None]
        layer(x)
        for w in layer.weights:
            w.assign(rng.normal(size=w.shape).astype("float32"))
        got = layer(x, padding_mask=padding_mask, attention_mask=allowed.astype("int32"))
        expected = numpy_attention(layer, x.astype("float64"), padding_mask, allowed)
        self.assertAllClose(got, expected, atol=1e-5)

    def test_config_saved_with_the_old_dropout_key_still_loads(self):
        # Before the argument took its bert_config name it was `dropout`.
        config = SelfAttention(2, attention_probs_dropout_prob=0.3).get_config()
        config["dropout"] = config.pop("attention_probs_dropout_prob")
        restored = SelfAttention.from_config(config)
        self.assertEqual(restored.attention_probs_dropout_prob, 0.3)
