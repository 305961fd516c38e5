"""Tests for `ForwardOps`: the steps the encoder's forward pass is wired from."""

import keras
import numpy as np
import pytest

import keras_bert
from keras_bert.layers.forward_ops import FLOAT_OPS
from keras_bert.layers.forward_ops import ForwardOps
from keras_bert.layers.transformer_encoder import TransformerEncoder
from keras_bert.models.bert_encoder import encode
from tests.test_case import TINY
from tests.test_case import TestCase
from tests.test_case import randomize_weights
from tests.test_case import tiny_inputs


class _LoggingOps(ForwardOps):
    """`FLOAT_OPS` that logs each step, and runs sublayers' wirings on itself."""

    def __init__(self):
        self.steps = []

    def _log(self, step, layer=None):
        self.steps.append(step if layer is None else f"{step}:{layer.name}")

    def embed(self, layer, token_ids, segment_ids, training):
        self._log("embed")
        return layer.call_with_ops(token_ids, segment_ids, training, self)

    def mask(self, padding_mask, attention_pattern, training):
        self._log("mask")
        return super().mask(padding_mask, attention_pattern, training)

    def block(self, layer, x, mask, training):
        self._log("block", layer)
        full = {"padding_mask": None, "attention_mask": None, **mask}
        return layer.call_with_ops(x, full, training, self)

    def embedding_sum(self, layer, token_ids, segment_ids, training):
        self._log("embedding_sum")
        return super().embedding_sum(layer, token_ids, segment_ids, training)

    def normalize(self, layer, x, training):
        self._log("normalize", layer)
        return super().normalize(layer, x, training)

    def dropout(self, layer, x, training):
        self._log("dropout")
        return super().dropout(layer, x, training)

    def dense(self, layer, x, training):
        self._log("dense", layer)
        return super().dense(layer, x, training)

    def residual(self, x, y, site, training):
        self._log(f"residual:{site}")
        return super().residual(x, y, site, training)

    def activation(self, fn, x, training):
        self._log("activation")
        return super().activation(fn, x, training)

    def attention(self, layer, x, mask, training):
        self._log("attention")
        return layer.call_with_ops(x, mask, training, self)

    def attend(self, layer, query, key, value, mask, training):
        self._log("attend")
        return super().attend(layer, query, key, value, mask, training)


class ForwardOpsTest(TestCase):
    def test_block_steps_in_order(self):
        layer = TransformerEncoder(2, 12, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
        x = np.random.default_rng(0).normal(size=(3, 7, 8)).astype("float32")
        padding_mask = (np.arange(7)[None] < np.array([[7], [5], [2]])).astype("int32")
        expected = layer(x, padding_mask=padding_mask)
        ops = _LoggingOps()
        mask = {"padding_mask": padding_mask, "attention_mask": None}
        actual = layer.call_with_ops(x, mask, None, ops)
        self.assertEqual(
            ops.steps,
            [
                "attention", "dense:query", "dense:key", "dense:value", "attend",
                "dense:attention_output", "dropout", "residual:attention",
                "normalize:attention_layer_norm",
                "dense:intermediate", "activation", "dense:output", "dropout",
                "residual:output", "normalize:output_layer_norm",
            ],
        )
        self.assertAllClose(actual, expected, atol=0.0, rtol=0.0)

    def test_encode_runs_every_step_of_the_encoder(self):
        encoder = keras_bert.BertEncoder(**TINY)
        randomize_weights(encoder, scale=0.3)
        inputs = tiny_inputs()
        ops = _LoggingOps()
        outputs = encode(encoder.embeddings, encoder.transformer_layers, inputs, "bidirectional",
                         ops)
        self.assertEqual(ops.steps[:5], ["embed", "embedding_sum", "normalize:layer_norm",
                                         "dropout", "mask"])
        blocks = [s for s in ops.steps if s.startswith("block")]
        self.assertEqual(blocks, ["block:transformer_layer_0", "block:transformer_layer_1"])
        self.assertEqual(len(ops.steps), 5 + 2 * 16)
        expected = encoder(inputs)["encoder_outputs"]
        for got, want in zip(outputs, expected):
            self.assertAllClose(got, want, atol=1e-6)

    def test_steps_list_every_method(self):
        methods = {name for name in vars(ForwardOps) if not name.startswith("_")} - {"STEPS"}
        listed = {step for steps in ForwardOps.STEPS.values() for step in steps}
        self.assertEqual(listed, methods)
        self.assertEqual({name for name in dir(_LoggingOps) if not name.startswith("_")}
                         - {"STEPS"}, methods)

    @pytest.mark.backend_portable
    def test_float_ops_mask_follows_the_pattern(self):
        padding_mask = np.array([[1, 1, 0]], "int32")
        self.assertEqual(list(FLOAT_OPS.mask(padding_mask, "bidirectional", None)),
                         ["padding_mask"])
        causal = FLOAT_OPS.mask(padding_mask, "causal", None)
        self.assertEqual(list(causal), ["attention_mask"])
        np.testing.assert_array_equal(
            keras.ops.convert_to_numpy(causal["attention_mask"]),
            keras.ops.convert_to_numpy(keras_bert.layers.attention_mask(padding_mask, "causal")),
        )
