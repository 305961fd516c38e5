"""Tests for `TransformerEncoder`."""

import numpy as np

from keras_bert.layers.transformer_encoder import TransformerEncoder
from tests.reference import numpy_bert
from tests.test_case import TestCase


class TransformerEncoderTest(TestCase):
    def make_layer(self, hidden_act="gelu"):
        return TransformerEncoder(
            2, 12, hidden_act=hidden_act, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0
        )

    def test_layer_contract(self):
        self.run_layer_test(
            self.make_layer(),
            (np.random.default_rng(0).normal(size=(3, 7, 8)).astype("float32"),),
            expected_output_shape=(3, 7, 8),
            # q, k, v, attention output, intermediate, output: 6 dense x 2; 2 LayerNorms x 2.
            expected_num_weights=16,
            gradient_free=("key/bias",),
        )

    def test_matches_numpy_post_layer_norm_block(self):
        for hidden_act in ("gelu", "gelu_new", "relu"):
            layer = self.make_layer(hidden_act)
            rng = np.random.default_rng(3)
            x = rng.normal(size=(3, 7, 8)).astype("float32")
            padding_mask = (np.arange(7)[None] < np.array([[7], [5], [2]])).astype("int32")
            layer(x)
            for w in layer.weights:
                w.assign(rng.normal(scale=0.5, size=w.shape).astype("float32"))
            # The NumPy reference reads TF1 names: name this block's weights that way.
            a = layer.attention
            weights = {}
            for scope, dense in {
                "attention/self/query": a.query_dense,
                "attention/self/key": a.key_dense,
                "attention/self/value": a.value_dense,
                "attention/output/dense": layer.attention_output_dense,
                "intermediate/dense": layer.intermediate_dense,
                "output/dense": layer.output_dense,
            }.items():
                weights[f"bert/encoder/layer_0/{scope}/kernel"] = dense.kernel.numpy()
                weights[f"bert/encoder/layer_0/{scope}/bias"] = dense.bias.numpy()
            for scope, norm in {
                "attention/output/LayerNorm": layer.attention_layer_norm,
                "output/LayerNorm": layer.output_layer_norm,
            }.items():
                weights[f"bert/encoder/layer_0/{scope}/gamma"] = norm.gamma.numpy()
                weights[f"bert/encoder/layer_0/{scope}/beta"] = norm.beta.numpy()
            expected = numpy_bert.transformer_block(
                numpy_bert.as_float64(weights),
                "bert/encoder/layer_0",
                x.astype("float64"),
                padding_mask,
                heads=2,
                hidden_act=hidden_act,
            )
            self.assertAllClose(
                layer(x, padding_mask=padding_mask), expected, atol=1e-5, msg=hidden_act
            )
