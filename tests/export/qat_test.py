"""Tests for export.qat (quantization-aware models) and export.fake_quant."""

import os
import tempfile

import keras
import numpy as np
import pytest

import keras_bert
from export.fake_quant import FakeQuant
from export.fake_quant import set_fake_quant_mode
from export.qat import convert_full_int8
from export.qat import quantize_aware
from tests.test_case import TINY
from tests.test_case import TestCase
from tests.test_case import randomize_weights
from tests.test_case import tiny_inputs


def _tiny_question_answerer(seed=0):
    model = keras_bert.BertQuestionAnswerer(keras_bert.BertEncoder(**TINY))
    randomize_weights(model, seed=seed, scale=0.3)
    return model


def _calibration_inputs(count=6):
    # Different padding per batch: calibration must see padded keys (see convert_full_int8).
    batches = [tiny_inputs(seed=s, lengths=(7, 5 - s % 3, 2 + s % 4)) for s in range(count)]
    return {k: np.concatenate([b[k] for b in batches]) for k in batches[0]}


def _calibrated(model, ema_decay=0.99):
    qat = quantize_aware(model, ema_decay)
    set_fake_quant_mode(qat, "calibrate")
    qat.predict(_calibration_inputs(), batch_size=3, verbose=0)
    set_fake_quant_mode(qat, "quantize")
    return qat


class FakeQuantTest(TestCase):
    def test_first_batch_sets_range_then_ema(self):
        layer = FakeQuant(ema_decay=0.5)
        layer(np.array([-1.0, 3.0], "float32"), training=True)
        self.assertAllClose([layer.range_min, layer.range_max], [-1.0, 3.0])
        layer(np.array([1.0, 5.0], "float32"), training=True)  # min clamps to 0: range holds 0
        self.assertAllClose([layer.range_min, layer.range_max], [-0.5, 4.0])

    def test_quantizes_to_grid_and_saturates(self):
        layer = FakeQuant()
        layer(np.zeros(1, "float32"))
        layer.range_min.assign(-1.0)
        layer.range_max.assign(1.55)  # scale 0.01, zero point exactly -28
        out = keras.ops.convert_to_numpy(layer(np.array([0.123, 2.0, -3.0], "float32")))
        self.assertAllClose(out, np.array([0.12, 1.55, -1.0], "float32"), atol=1e-6)

    def test_bad_mode_is_rejected(self):
        with self.assertRaisesRegex(ValueError, "mode must be one of"):
            set_fake_quant_mode(_tiny_question_answerer(), "int4")


class QuantizeAwareTest(TestCase):
    def test_disabled_equals_float_model(self):
        model = _tiny_question_answerer()
        inputs = tiny_inputs()
        qat = quantize_aware(model)
        self.assertGreater(set_fake_quant_mode(qat, "off"), 50)
        self.assertAllClose(qat(inputs), model(inputs), atol=1e-5)

    def test_classifiers_disabled_equal_float_model(self):
        inputs = tiny_inputs()
        for cls in (keras_bert.BertClassifier, keras_bert.BertTokenClassifier):
            model = cls(keras_bert.BertEncoder(**TINY), num_classes=4, dropout=0.0)
            randomize_weights(model, scale=0.3)
            qat = quantize_aware(model)
            set_fake_quant_mode(qat, "off")
            self.assertAllClose(qat(inputs), model(inputs), atol=1e-5, msg=cls.__name__)

    def test_enabled_is_close_to_float_model(self):
        model = _tiny_question_answerer()
        inputs = tiny_inputs()
        expected = model(inputs)
        actual = _calibrated(model)(inputs)
        for name in ("start_logits", "end_logits"):
            diff = np.abs(np.asarray(actual[name]) - np.asarray(expected[name]))
            size = np.abs(np.asarray(expected[name])).max()
            # ~80 int8 roundings on a 2-layer model: about 1% of the logits' size, not 0.
            self.assertGreater(diff.max(), 1e-4, name)
            self.assertLess(diff.max(), 0.03 * size, name)

    def test_shares_weights_with_float_model(self):
        model = _tiny_question_answerer()
        qat = quantize_aware(model)
        kernel = model.encoder.transformer_layers[0].intermediate_dense.kernel
        self.assertTrue(any(w is kernel for w in qat.trainable_weights))
        self.assertEqual(len(qat.trainable_weights), len(model.trainable_weights))

    def test_rejects_other_models(self):
        with self.assertRaisesRegex(TypeError, "quantize_aware supports"):
            quantize_aware(keras_bert.BertEncoder(**TINY))

    @pytest.mark.large
    def test_trains_on_toy_task(self):
        # Toy task: the answer span is the first and the last real token.
        model = keras_bert.BertQuestionAnswerer(keras_bert.BertEncoder(**TINY))
        # From random init the logits must grow past their calibrated ranges, and values
        # outside a range get no gradient: a fast EMA lets the ranges follow.
        qat = _calibrated(model, ema_decay=0.9)
        inputs = _calibration_inputs(4)
        lengths = inputs["padding_mask"].sum(axis=1)
        labels = {"start_logits": np.ones_like(lengths), "end_logits": lengths - 1}
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        qat.compile(keras.optimizers.Adam(3e-3), loss={"start_logits": loss, "end_logits": loss})
        history = qat.fit(inputs, labels, batch_size=12, epochs=40, verbose=0).history["loss"]
        self.assertLess(np.mean(history[-5:]), 0.8 * np.mean(history[:5]))


class ConvertFullInt8Test(TestCase):
    def test_rejects_bad_representative_inputs(self):
        with self.assertRaisesRegex(ValueError, "exactly the keys"):
            convert_full_int8(_tiny_question_answerer(), "x.tflite", 7, {"ids": np.zeros((1, 7))})
        bad = dict(tiny_inputs(), token_ids=np.zeros((3, 5), "int32"))
        with self.assertRaisesRegex(ValueError, "Pad or cut"):
            convert_full_int8(_tiny_question_answerer(), "x.tflite", 7, bad)

    @pytest.mark.large
    def test_converts_to_full_int8_matching_qat_model(self):
        from ai_edge_litert.interpreter import Interpreter
        from ai_edge_litert.interpreter import OpResolverType

        model = _tiny_question_answerer()
        qat = _calibrated(model)
        with tempfile.TemporaryDirectory() as tmp:
            path = convert_full_int8(
                qat, os.path.join(tmp, "qa.tflite"), 7, _calibration_inputs()
            )
            interpreter = Interpreter(
                model_path=path,
                experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
            )
            interpreter.allocate_tensors()
            tensors = {t["index"]: t for t in interpreter.get_tensor_details()}
            ops = interpreter._get_ops_details()
            runner = interpreter.get_signature_runner()
            inputs = tiny_inputs(seed=11)
            outputs = [
                runner(ids=inputs["token_ids"][i:i + 1], mask=inputs["padding_mask"][i:i + 1],
                       segment_ids=inputs["segment_ids"][i:i + 1])
                for i in range(3)
            ]
        names = {op["op_name"] for op in ops}
        self.assertFalse({n for n in names if "FLEX" in n or "CUSTOM" in n}, names)
        float_ops = set()
        for op in ops:
            dtypes = {np.dtype(tensors[i]["dtype"]) for i in list(op["inputs"]) + list(op["outputs"])
                      if i >= 0}
            if op["op_name"] in ("FULLY_CONNECTED", "BATCH_MATMUL", "SOFTMAX", "GELU"):
                self.assertTrue(dtypes <= {np.dtype("int8"), np.dtype("int32")}, op)
            elif np.dtype("float32") in dtypes:
                float_ops.add(op["op_name"])
        # Only the float <-> int8 boundaries: the padding mask cast in, the logits out.
        self.assertEqual(float_ops, {"CAST", "QUANTIZE", "DEQUANTIZE"})
        self.assertEqual(sum(op["op_name"] == "FULLY_CONNECTED" for op in ops), 13)

        expected = qat(inputs)
        logits_fq = qat.get_layer("head").logits_fq
        step = (float(logits_fq.range_max) - float(logits_fq.range_min)) / 255.0
        for name in ("start_logits", "end_logits"):
            actual = np.concatenate([o[name] for o in outputs])
            # The int8 kernels requantize in integer arithmetic where fake quant rounds in
            # float, so a value can land one grid step off at any of ~80 tensors and carry on.
            # Measured: 0-1 steps of the logits' grid on this model, up to 3 on other seeds
            # (runs of 3 random tiny models). 4 steps is the bound; float vs QAT is larger.
            self.assertLessEqual(
                np.abs(actual - np.asarray(expected[name])).max(), 4 * step + 1e-6, name
            )


class CheckpointTest(TestCase):
    def test_checkpoint_keeps_ranges(self):
        import tensorflow as tf

        qat = _calibrated(_tiny_question_answerer())
        inputs = tiny_inputs(seed=5)
        expected = qat(inputs)
        with tempfile.TemporaryDirectory() as tmp:
            path = tf.train.Checkpoint(model=qat).save(os.path.join(tmp, "ckpt"))
            revived = quantize_aware(_tiny_question_answerer(seed=9))
            tf.train.Checkpoint(model=revived).restore(path).assert_existing_objects_matched()
            ranges = [float(w) for w in revived.non_trainable_weights]
        self.assertEqual(
            ranges, [float(w) for w in qat.non_trainable_weights]
        )
        self.assertAllClose(revived(inputs), expected, atol=1e-6)
