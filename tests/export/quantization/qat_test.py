"""Tests for keras_bert.export.quantization.qat (quantization-aware models) and
keras_bert.export.quantization.fake_quant."""

import atexit
import os
import re
import shutil
import tempfile

import keras
import numpy as np
import pytest

import keras_bert
from keras_bert.export.quantization.fake_quant import FakeQuant
from keras_bert.export.quantization.fake_quant import fake_quant_layers
from keras_bert.export.quantization.fake_quant import freeze_ranges
from keras_bert.export.quantization.fake_quant import learn_ranges
from keras_bert.export.quantization.fake_quant import set_fake_quant_mode
from keras_bert.export.quantization.int8_ops import op_errors
from keras_bert.export.quantization.int8_profile import int8_profile
from keras_bert.export.quantization.qat import quantize_aware
from keras_bert.export.tflite.conversion import export_tflite
from keras_bert.layers.forward_ops import ForwardOps
from tests.test_case import TINY
from tests.test_case import TestCase
from tests.test_case import randomize_weights
from tests.test_case import tiny_inputs


def _tiny_question_answerer(seed=0):
    model = keras_bert.BertQuestionAnswerer(keras_bert.BertEncoder(**TINY))
    randomize_weights(model, seed=seed, scale=0.3)
    return model


def _calibration_inputs(count=6):
    # Different padding per batch: calibration must see padded keys (the attention mask).
    batches = [tiny_inputs(seed=s, lengths=(7, 5 - s % 3, 2 + s % 4)) for s in range(count)]
    return {k: np.concatenate([b[k] for b in batches]) for k in batches[0]}


def _with_outlier_dimension(model, dim=3, gain=40.0):
    """Gives `model` a residual-stream outlier dimension, as pretrained BERTs have (dim 99 of
    MiniLM): the embedding and first-block LayerNorms scale dimension `dim` by `gain`."""
    encoder = model.encoder
    for layer_norm in (encoder.embeddings.layer_norm,
                       encoder.transformer_layers[0].output_layer_norm):
        gamma = np.asarray(layer_norm.gamma)
        gamma[dim] = gain
        layer_norm.gamma.assign(gamma)
    return model


def _with_wide_head(model, gains=(600.0, 30.0)):
    """Scales the first block's query kernel per head (`gains`): head 0's scores then span
    ~±60 and head 1's ~±3, as MiniLM's layer 0 head 2 spans [-136, 110] and the others ±26."""
    query = model.encoder.transformer_layers[0].attention.query_dense
    kernel = np.asarray(query.kernel)
    size = kernel.shape[1] // len(gains)
    for head, gain in enumerate(gains):
        kernel[:, head * size:(head + 1) * size] *= gain
    query.kernel.assign(kernel)
    return model


def _outlier_task_models():
    """(model, its int8 profile) for each task model kind, with an outlier stream dimension."""
    models = [_tiny_question_answerer()] + [
        cls(keras_bert.BertEncoder(**TINY), num_classes=4, dropout=0.0)
        for cls in (keras_bert.BertClassifier, keras_bert.BertTokenClassifier)
    ]
    for model in models:
        randomize_weights(model, scale=0.3)
        _with_outlier_dimension(model)
        yield model, int8_profile(model, _calibration_inputs())


# Expensive, read-only artifacts shared by several tests (CI time): building and calibrating a
# QAT graph and converting it to TFLite each trace the whole graph. Tests that mutate a model
# (ranges, modes they do not set back, weights) build their own.
_SHARED = {}
_SHARED_DIR = []


def _shared(key, make):
    if key not in _SHARED:
        _SHARED[key] = make()
    return _SHARED[key]


def _shared_dir():
    if not _SHARED_DIR:
        _SHARED_DIR.append(tempfile.mkdtemp(prefix="qat_test_"))
        atexit.register(shutil.rmtree, _SHARED_DIR[0], True)
    return _SHARED_DIR[0]


def _plain():
    """(`_tiny_question_answerer()`, its `_calibrated` QAT graph), built once."""
    def make():
        model = _tiny_question_answerer()
        return model, _calibrated(model)
    return _shared("plain", make)


def _calibrated_plain():
    """`_calibrated(_tiny_question_answerer())`, built once."""
    return _plain()[1]


def _calibrated_head_scaled():
    """The wide-head model's calibrated head-scaled QAT graph, built once."""
    return _shared("head_scaled", lambda: _calibrated(
        _with_wide_head(_tiny_question_answerer()),
        profile={"groups": [list(range(8))], "head_scales": True}))


def _full_int8_path(key, qat):
    """`qat` converted to full int8 at sequence length 7 (once per key); the .tflite path."""
    return _shared(("tflite", key), lambda: export_tflite(
        qat, os.path.join(_shared_dir(), f"{key}.tflite"), 7, "full_int8",
        _calibration_inputs()))


def _calibrated(model, ema_decay=0.99, profile=None):
    qat = quantize_aware(model, ema_decay, profile=profile)
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

    def test_min_width_widens_range_downwards(self):
        layer = FakeQuant(ema_decay=0.5, min_width=12.0)
        layer(np.array([-1.0, 3.0], "float32"), training=True)
        self.assertAllClose([layer.range_min, layer.range_max], [-9.0, 3.0])
        layer(np.array([-30.0, 5.0], "float32"), training=True)  # wide enough: plain EMA
        self.assertAllClose([layer.range_min, layer.range_max], [-19.5, 4.0])
        with self.assertRaisesRegex(ValueError, "min_width must be positive"):
            FakeQuant(min_width=0.0)

    def test_frozen_range_holds_in_training_not_in_calibration(self):
        layer = FakeQuant(ema_decay=0.5)
        layer(np.array([-1.0, 3.0], "float32"), training=True)
        holder = keras.Sequential([layer])
        self.assertEqual(freeze_ranges(holder), 1)
        layer(np.array([-9.0, 9.0], "float32"), training=True)
        self.assertAllClose([layer.range_min, layer.range_max], [-1.0, 3.0])
        layer.mode = "calibrate"  # an explicit calibration still sets it
        layer(np.array([-9.0, 9.0], "float32"))
        self.assertAllClose([layer.range_min, layer.range_max], [-5.0, 6.0])

    def test_quantizes_to_grid_and_saturates(self):
        layer = FakeQuant()
        layer(np.zeros(1, "float32"))
        layer.range_min.assign(-1.0)
        layer.range_max.assign(1.55)  # scale 0.01, zero point exactly -28
        out = keras.ops.convert_to_numpy(layer(np.array([0.123, 2.0, -3.0], "float32")))
        self.assertAllClose(out, np.array([0.12, 1.55, -1.0], "float32"), atol=1e-6)

    def _learn_range(self, x, start, steps=300, learn=True):
        """Adam on the MSE of `x`'s fake quant against `x`, from the range `start`."""
        import tensorflow as tf

        layer = FakeQuant()
        holder = keras.Sequential([layer])
        holder(x)
        layer.range_min.assign(start[0])
        layer.range_max.assign(start[1])
        deltas = learn_ranges(holder, 1.0)
        self.assertEqual(len(deltas), 1)
        if not learn:  # TensorFlow's own range gradient, for comparison
            layer.range_lr_multiplier = 0.0
            low0, high0 = start
            variables = [tf.Variable(low0), tf.Variable(high0)]
        optimizer = keras.optimizers.Adam(0.01)
        errors = []
        for _ in range(steps):
            with tf.GradientTape() as tape:
                if learn:
                    y = holder(x, training=True)
                    variables = deltas
                else:
                    y = tf.quantization.fake_quant_with_min_max_vars(x, *variables)
                error = tf.reduce_mean(tf.square(y - x))
            optimizer.apply_gradients(zip(tape.gradient(error, variables), variables))
            errors.append(float(error))
        if learn:
            return errors, [float(v) for v in layer.current_range()], holder
        return errors, [float(v) for v in variables], holder

    def test_learned_range_finds_a_lower_rounding_error(self):
        # N(0, 1): the 8-bit range of least squared error is about +-3.5 (rounding against
        # clipping). From too wide (rounding dominates) and too narrow (clipping dominates),
        # the LSQ gradient moves the range there and the error falls.
        x = np.random.default_rng(0).normal(size=(64, 64)).astype("float32")
        for start in ((-40.0, 40.0), (-1.0, 1.0)):
            errors, (low, high), _ = self._learn_range(x, start)
            self.assertLess(np.mean(errors[-20:]), 0.5 * errors[0], start)
            self.assertTrue(-6.0 < low < -2.0 and 2.0 < high < 6.0, (start, low, high))
        # TensorFlow's own gradient only counts clipped values: a wide range never shrinks.
        errors, (low, high), _ = self._learn_range(x, (-40.0, 40.0), learn=False)
        self.assertEqual((low, high), (-40.0, 40.0))

    def test_learned_range_gradient_is_lsq_on_the_nudged_grid(self):
        # LSQ's gradient written out in numpy, from x itself (the op keeps only a bfloat16
        # residual of it): straight-through inside the nudged range, clipped values push the
        # range's ends, in-range ones pull them by their rounding error / 255.
        import tensorflow as tf

        from keras_bert.export.quantization.fake_quant import _fake_quant_learned_range

        rng = np.random.default_rng(3)
        x = rng.normal(scale=2.0, size=(16, 48)).astype("float32")
        dy = rng.normal(size=x.shape).astype("float32")
        low, high = -3.1, 2.7
        step = (high - low) / 255.0
        zero_point = np.round(np.clip(-low / step, 0.0, 255.0))
        bottom, top = -zero_point * step, (255.0 - zero_point) * step
        below, above = x < bottom, x > top
        inside = ~(below | above)
        u = (x - bottom) / step
        rounding = np.where(inside, np.round(u) - u, 0.0) / 255.0
        scale = 1.0 / np.sqrt(x.size * 127.0)
        want_low = scale * np.sum(dy * np.where(below, 1.0, -rounding))
        want_high = scale * np.sum(dy * np.where(above, 1.0, rounding))
        self.assertGreater(below.sum(), 10)
        self.assertGreater(above.sum(), 10)

        xs, lows, highs = tf.constant(x), tf.Variable(low), tf.Variable(high)
        with tf.GradientTape() as tape:
            tape.watch(xs)
            y = _fake_quant_learned_range(xs, lows, highs)
            loss = tf.reduce_sum(y * dy)
        d_x, d_low, d_high = tape.gradient(loss, [xs, lows, highs])
        np.testing.assert_array_equal(np.asarray(d_x), np.where(inside, dy, 0.0))
        # bfloat16 keeps 8 bits of each residual: sums agree to well under 1 %.
        self.assertAllClose([float(d_low), float(d_high)], [want_low, want_high], rtol=5e-3)
        np.testing.assert_array_equal(
            np.asarray(y), np.asarray(tf.quantization.fake_quant_with_min_max_vars(xs, low, high)))

    def test_learned_range_bakes_into_the_range_the_converter_reads(self):
        x = np.random.default_rng(1).normal(size=(32, 32)).astype("float32")
        _, (low, high), holder = self._learn_range(x, (-20.0, 20.0), steps=30)
        layer = holder.layers[0]
        before = np.asarray(holder(x))
        self.assertEqual(learn_ranges(holder, 0.0), [])
        self.assertAllClose([layer.range_min, layer.range_max], [low, high])
        np.testing.assert_array_equal(np.asarray(layer.range_delta), [0.0, 0.0])
        self.assertFalse(layer.range_delta.trainable)
        np.testing.assert_array_equal(np.asarray(holder(x)), before)
        with self.assertRaisesRegex(ValueError, "multiplier must be >= 0"):
            learn_ranges(holder, -1.0)

    def test_bad_mode_is_rejected(self):
        with self.assertRaisesRegex(ValueError, "mode must be one of"):
            set_fake_quant_mode(_tiny_question_answerer(), "int4")


class QuantizeAwareTest(TestCase):
    def test_disabled_equals_float_model(self):
        model, qat = _plain()  # quantize_aware(model), calibrated: shared, so set back after
        inputs = tiny_inputs()
        try:
            self.assertGreater(set_fake_quant_mode(qat, "off"), 50)
            self.assertAllClose(qat(inputs), model(inputs), atol=1e-5)
        finally:
            set_fake_quant_mode(qat, "quantize")  # as _calibrated leaves it

    def test_classifiers_disabled_equal_float_model(self):
        inputs = tiny_inputs()
        for cls in (keras_bert.BertClassifier, keras_bert.BertTokenClassifier):
            model = cls(keras_bert.BertEncoder(**TINY), num_classes=4, dropout=0.0)
            randomize_weights(model, scale=0.3)
            qat = quantize_aware(model)
            set_fake_quant_mode(qat, "off")
            self.assertEqual(tuple(qat(inputs).shape), tuple(model(inputs).shape))
            self.assertAllClose(qat(inputs), model(inputs), atol=1e-5, msg=cls.__name__)

    def test_enabled_is_close_to_float_model(self):
        model = _tiny_question_answerer()
        inputs = tiny_inputs()
        expected = model(inputs)
        actual = _calibrated_plain()(inputs)  # _calibrated of the same model (same seed)
        for name in ("start_logits", "end_logits"):
            diff = np.abs(np.asarray(actual[name]) - np.asarray(expected[name]))
            size = np.abs(np.asarray(expected[name])).max()
            # ~80 int8 roundings on a 2-layer model: about 1% of the logits' size, not 0.
            self.assertGreater(diff.max(), 1e-4, name)
            self.assertLess(diff.max(), 0.03 * size, name)

    def test_profile_isolates_outlier_dimension(self):
        model = _with_outlier_dimension(_tiny_question_answerer())
        profile = int8_profile(model, _calibration_inputs())
        self.assertEqual(profile["groups"], [[3], [0, 1, 2, 4, 5, 6, 7]])
        self.assertEqual(len(profile["peaks"]), 8)
        self.assertEqual(int(np.argmax(profile["peaks"])), 3)
        # With an outlier group, the LayerNorms keep its squares apart unless told not to.
        self.assertIs(profile["split_variance"], True)
        summed = int8_profile(model, _calibration_inputs(), split_variance=False)
        self.assertEqual(summed["groups"], profile["groups"])
        self.assertIs(summed["split_variance"], False)
        # Without outliers, one group: the plain per-tensor graph, with nothing to split.
        plain = int8_profile(_tiny_question_answerer(), _calibration_inputs())
        self.assertEqual(plain["groups"], [list(range(8))])
        self.assertIs(plain["split_variance"], False)

    def test_profile_rejects_bad_arguments(self):
        model = _tiny_question_answerer()
        with self.assertRaisesRegex(ValueError, "max_groups >= 1 and ratio > 1"):
            int8_profile(model, _calibration_inputs(), ratio=1.0)
        padded = dict(tiny_inputs(), padding_mask=np.zeros((3, 7), "int32"))
        with self.assertRaisesRegex(ValueError, "non-padding token"):
            int8_profile(model, padded)
        with self.assertRaisesRegex(ValueError, "disjoint lists"):
            quantize_aware(model, profile={"groups": [[0, 1], [1, 2]]})

    def test_grouped_disabled_equals_float_models(self):
        inputs = tiny_inputs()
        for model, profile in _outlier_task_models():
            for head_scales, split_variance in ((False, False), (True, False), (False, True)):
                qat = quantize_aware(model, profile=dict(profile, head_scales=head_scales,
                                                         split_variance=split_variance))
                set_fake_quant_mode(qat, "off")
                actual, expected = qat(inputs), model(inputs)
                for a, e in zip(keras.tree.flatten(actual), keras.tree.flatten(expected)):
                    self.assertEqual(tuple(a.shape), tuple(e.shape), model.name)
                self.assertAllClose(actual, expected, atol=1e-4, msg=model.name)

    def test_blocks_model_disabled_equals_float_encoder_outputs(self):
        # The second view (for hidden-state distillation) puts each block's groups back in
        # dimension order: with fake quant off, it is the float encoder's own encoder_outputs.
        inputs = tiny_inputs()
        for model, profile in _outlier_task_models():
            self.assertGreater(len(profile["groups"]), 1)
            qat, blocks_model = quantize_aware(model, profile=profile, with_blocks=True)
            set_fake_quant_mode(blocks_model, "off")
            actual, blocks = blocks_model(inputs)
            expected = model.encoder(inputs)["encoder_outputs"]
            self.assertEqual(len(blocks), TINY["num_hidden_layers"])
            self.assertAllClose(blocks, expected, atol=1e-4, msg=model.name)
            task = model(inputs)
            self.assertAllClose(actual, task, atol=1e-4, msg=model.name)
            # The views share every variable: training one trains the other.
            self.assertEqual({id(v) for v in qat.weights}, {id(v) for v in blocks_model.weights})

    def test_groups_cut_int8_error_of_outlier_model(self):
        model = _with_outlier_dimension(_tiny_question_answerer(), gain=200.0)
        inputs = tiny_inputs(seed=11)
        expected = model(inputs)
        profile = int8_profile(model, _calibration_inputs())
        errors = {}
        for name, qat in (("plain", _calibrated(model)), ("grouped", _calibrated(model, profile=profile))):
            actual = qat(inputs)
            errors[name] = max(np.abs(np.asarray(actual[k]) - np.asarray(expected[k])).mean()
                               for k in ("start_logits", "end_logits"))
        # One int8 scale for the stream rounds the 7 ordinary dimensions to a grid set by the
        # outlier's range; their own group keeps a fine one. Measured on this model: mean
        # logit error 0.072 plain, 0.030 grouped (the rest is every other int8 rounding).
        self.assertLess(errors["grouped"], 0.6 * errors["plain"], errors)

    def test_split_variance_cuts_layer_norm_error_of_outlier_tokens(self):
        # An outlier dimension that is huge on some tokens only (MiniLM's dimension 99 reaches
        # ~200 on separators): one int8 range for every token's sum of squares then rounds the
        # ordinary tokens' sums, and so their normalization, coarsely.
        model = _tiny_question_answerer()
        embeddings = model.encoder.embeddings
        for table in (embeddings.token_embedding.embeddings,
                      embeddings.segment_embedding.embeddings, embeddings.position_embeddings):
            values = np.asarray(table)
            values[:, 3] = 0.0
            table.assign(values)
        tokens = np.asarray(embeddings.token_embedding.embeddings)
        tokens[1, 3] = 50.0  # token 1 (the "separator"): dimension 3 far above the others
        embeddings.token_embedding.embeddings.assign(tokens)
        calibration = _calibration_inputs()
        calibration["token_ids"][:, 0] = 1  # every window starts with one
        inputs = tiny_inputs(seed=11)
        inputs["token_ids"][:, 0] = 1
        profile = int8_profile(model, calibration)
        self.assertEqual(profile["groups"][0], [3])
        expected = model.encoder(inputs)["encoder_outputs"]
        real = inputs["padding_mask"] > 0
        errors = {}
        for split in (False, True):
            qat, blocks_model = quantize_aware(model, profile=dict(profile, split_variance=split),
                                               with_blocks=True)
            set_fake_quant_mode(qat, "calibrate")
            qat.predict(calibration, batch_size=3, verbose=0)
            set_fake_quant_mode(qat, "quantize")
            blocks = blocks_model(inputs)[1]
            errors[split] = np.mean([np.mean((np.asarray(b) - np.asarray(e))[real] ** 2)
                                     for b, e in zip(blocks, expected)])
        # Measured on this model: mean squared block error 3.6e-5 summed, 1.9e-5 split.
        self.assertLess(errors[True], 0.6 * errors[False], errors)

    def test_profile_gives_a_wide_head_its_own_scores(self):
        plain = int8_profile(_tiny_question_answerer(), _calibration_inputs())
        self.assertEqual(np.asarray(plain["head_peaks"]).shape, (2, 2))  # [layers, heads]
        self.assertFalse(plain["head_scales"])
        wide = int8_profile(_with_wide_head(_tiny_question_answerer()), _calibration_inputs())
        self.assertTrue(wide["head_scales"])
        self.assertGreater(wide["head_peaks"][0][0], 4 * wide["head_peaks"][0][1])

    def test_head_scales_cut_int8_error_of_wide_head_model(self):
        model = _with_wide_head(_tiny_question_answerer())
        # Head 0 attends but adds nothing (zero values): the error left is head 1's.
        value = model.encoder.transformer_layers[0].attention.value_dense
        for weight in (value.kernel, value.bias):
            zeroed = np.asarray(weight).copy()
            zeroed[..., :4] = 0.0
            weight.assign(zeroed)
        inputs = tiny_inputs(seed=11)
        padding = (1.0 - inputs["padding_mask"].astype("float32"))[:, None, None, :]
        errors = {}
        for head_scales in (False, True):
            qat = _calibrated(model, profile={"groups": [list(range(8))],
                                              "head_scales": head_scales})
            encoder = qat.get_layer("encoder")
            quantizers = fake_quant_layers(qat)
            outputs = []
            for scores_mode in ("quantize", "off"):  # only the softmax inputs' grids on, or none
                for layer in quantizers:
                    softmax_input = re.match("scores|masked_scores", layer.name)
                    layer.mode = scores_mode if softmax_input else "off"
                x = encoder.embeddings(inputs["token_ids"], inputs["segment_ids"])
                outputs.append(np.asarray(encoder.block_0(x, padding)[0]))  # [B, S, H]
            errors[head_scales] = np.abs(outputs[0] - outputs[1]).max()
        # One scores tensor rounds head 1 on wide head 0's grid (step 0.44 against 0.05
        # on its own).
        # Measured: 0.00095 -> 0.00047.
        self.assertLess(errors[True], 0.6 * errors[False], errors)

    def test_shares_weights_with_float_model(self):
        model, qat = _plain()  # quantize_aware(model), calibrated
        kernel = model.encoder.transformer_layers[0].intermediate_dense.kernel
        self.assertTrue(any(w is kernel for w in qat.trainable_weights))
        self.assertEqual(len(qat.trainable_weights), len(model.trainable_weights))

    def test_rejects_other_models(self):
        with self.assertRaisesRegex(TypeError, "quantize_aware supports"):
            quantize_aware(keras_bert.BertEncoder(**TINY))

    def test_refuses_encoders_whose_mask_it_cannot_spell(self):
        # The int8 graph builds every mask from padding_mask alone: a causal encoder would
        # become bidirectional there, so both entry points refuse it by name.
        for pattern in ("causal", "hide_next"):
            model = keras_bert.BertQuestionAnswerer(
                keras_bert.BertEncoder(**TINY, attention_pattern=pattern))
            with self.assertRaisesRegex(ValueError, f"quantize_aware: .*attention_pattern='{pattern}'"):
                quantize_aware(model)
            with self.assertRaisesRegex(ValueError, f"int8_profile: .*attention_pattern='{pattern}'"):
                int8_profile(model, _calibration_inputs())

    def test_spells_every_step_of_the_float_wiring(self):
        # The QAT layers are the ops (`ForwardOps`) of the float layers' own wiring: each must
        # spell every step its wiring calls, or the wiring would fall outside the int8 graph.
        from keras_bert.export.quantization import qat

        spellers = {"encoder": qat._Encoder, "embeddings": qat._Embeddings,
                    "block": qat._Transformer, "attention": qat._Transformer}
        self.assertEqual(set(spellers), set(ForwardOps.STEPS))
        for wiring, steps in ForwardOps.STEPS.items():
            for step in steps:
                self.assertTrue(callable(getattr(spellers[wiring], step, None)), (wiring, step))

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
    @pytest.mark.large
    def test_converts_to_full_int8_matching_qat_model(self):
        # 2 blocks x 6 Dense + the head, and each of the 5 LayerNorms' mean (an FC on 1/H).
        qat = _calibrated_plain()
        self._check_conversion(qat, fully_connected=18, path=_full_int8_path("plain", qat))

    @pytest.mark.large
    def test_converts_grouped_model_to_full_int8(self):
        model = _with_outlier_dimension(_tiny_question_answerer())
        profile = int8_profile(model, _calibration_inputs(), split_variance=False)
        # Two dimension groups: every Dense reading or writing the stream is two
        # FULLY_CONNECTED ops (2 blocks x 6 Dense x 2 + the head's 2), and each LayerNorm mean
        # one per group, less the one-dimension group's, which the converter makes a MUL (+5).
        ops, _ = self._check_conversion(_calibrated(model, profile=profile), fully_connected=31)
        # One sum of squares per LayerNorm: one RSQRT in each of the 5.
        self.assertEqual(sum(op["op_name"] == "RSQRT" for op in ops), 5)

    @pytest.mark.large
    def test_converts_split_variance_model_to_full_int8(self):
        model = _with_outlier_dimension(_tiny_question_answerer())
        profile = int8_profile(model, _calibration_inputs())  # split_variance by default
        self.assertIs(profile["split_variance"], True)
        ops, _ = self._check_conversion(_calibrated(model, profile=profile), fully_connected=31)
        # Each of the 5 LayerNorms: rsqrt of the other groups' squares, then of 1 + the ratio.
        self.assertEqual(sum(op["op_name"] == "RSQRT" for op in ops), 2 * 5)

    @pytest.mark.large
    def test_converts_head_scaled_model_to_full_int8(self):
        qat = _calibrated_head_scaled()
        ops, tensors = self._check_conversion(qat, fully_connected=18,
                                              path=_full_int8_path("head_scaled", qat))
        # Per layer and head, a [1, S, S] scores BATCH_MATMUL with its own int8 scale.
        scores = [tensors[op["outputs"][0]] for op in ops if op["op_name"] == "BATCH_MATMUL"]
        scores = [t for t in scores if list(t["shape"]) == [1, 7, 7]]
        self.assertEqual(len(scores), 2 * 2)
        self.assertEqual(sum(op["op_name"] == "SOFTMAX" for op in ops), 2 * 2)
        steps = [t["quantization"][0] for t in scores]
        # Layer 0's wide head on a far coarser grid than its narrow one (~12 wide).
        self.assertGreater(max(steps[:2]) / min(steps[:2]), 4.0, steps)

    @pytest.mark.large
    def test_every_kernel_set_ignores_padding(self):
        # LiteRT's optimized int8 ADD and XNNPACK mis-add int8 inputs whose scales differ
        # ~400x, as the attention scores plus a -10000 padding addend did: padded keys came out
        # at the top of the scores' range and were attended (MiniLM SST-2: 0.57 on XNNPACK,
        # 0.875 on the reference kernels). Under every kernel set, what sits at padded
        # positions must not change the answer, and the optimized kernels agree with the
        # reference ones.
        qat = _calibrated_plain()
        self._check_padding_ignored(qat, _full_int8_path("plain", qat))

    @pytest.mark.large
    def test_every_kernel_set_ignores_padding_with_head_scales(self):
        # Each head's scores are shifted to their row's top and masked again (REDUCE_MAX,
        # SUB, ADD per head): the same guarantees hold.
        qat = _calibrated_head_scaled()
        self._check_padding_ignored(qat, _full_int8_path("head_scaled", qat))

    def _check_padding_ignored(self, qat, path):
        """`path`: `qat` converted by `_full_int8_path`."""
        from ai_edge_litert.interpreter import Interpreter
        from ai_edge_litert.interpreter import OpResolverType

        inputs = tiny_inputs(seed=11)
        real = inputs["padding_mask"] == 1
        other = dict(inputs)
        rng = np.random.default_rng(5)
        other["token_ids"] = np.where(
            real, inputs["token_ids"], rng.integers(1, TINY["vocab_size"], real.shape)
        ).astype("int32")
        other["segment_ids"] = np.where(real, inputs["segment_ids"], 1).astype("int32")
        logits = {}
        for kind in ("AUTO", "BUILTIN_WITHOUT_DEFAULT_DELEGATES", "BUILTIN_REF"):
            runner = Interpreter(
                model_path=path,
                experimental_op_resolver_type=getattr(OpResolverType, kind),
            ).get_signature_runner()
            for variant, x in (("inputs", inputs), ("other", other)):
                outputs = [
                    runner(ids=x["token_ids"][i:i + 1], mask=x["padding_mask"][i:i + 1],
                           segment_ids=x["segment_ids"][i:i + 1])
                    for i in range(len(real))
                ]
                logits[kind, variant] = np.stack(
                    [np.concatenate([o[n] for o in outputs])
                     for n in ("start_logits", "end_logits")]
                )[:, real]  # [2, real tokens]
        # Op by op: each int8 op within a step of exact arithmetic on its own inputs.
        padded_row = {"ids": inputs["token_ids"][2:3], "mask": inputs["padding_mask"][2:3],
                      "segment_ids": inputs["segment_ids"][2:3]}
        for kind in ("BUILTIN_WITHOUT_DEFAULT_DELEGATES", "BUILTIN_REF"):
            errors = op_errors(path, kind, padded_row)
            self.assertGreater(len(errors), 40, kind)
            self.assertEqual([e for e in errors if e[3] > 1.0], [], kind)
        logits_fq = qat.get_layer("head").logits_fq
        step = (float(logits_fq.range_max) - float(logits_fq.range_min)) / 255.0
        for kind in ("AUTO", "BUILTIN_WITHOUT_DEFAULT_DELEGATES", "BUILTIN_REF"):
            # Padded keys saturate at the bottom of the scores' int8 range whatever their
            # content, so the int8 result is identical, not just close.
            np.testing.assert_array_equal(
                logits[kind, "inputs"], logits[kind, "other"], err_msg=kind
            )
            # Kernel sets round ties differently: a step or two, not a different answer.
            self.assertLessEqual(
                np.abs(logits[kind, "inputs"] - logits["BUILTIN_REF", "inputs"]).max(),
                2 * step + 1e-6, kind,
            )

    def _check_conversion(self, qat, fully_connected, path=None):
        """`path`: `qat` already converted by `_full_int8_path` (else it is converted here)."""
        from ai_edge_litert.interpreter import Interpreter
        from ai_edge_litert.interpreter import OpResolverType

        with tempfile.TemporaryDirectory() as tmp:
            if path is None:
                path = export_tflite(
                    qat, os.path.join(tmp, "qa.tflite"), 7, "full_int8", _calibration_inputs()
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
            indices = [i for i in list(op["inputs"]) + list(op["outputs"]) if i >= 0]
            dtypes = {np.dtype(tensors[i]["dtype"]) for i in indices}
            if op["op_name"] in ("FULLY_CONNECTED", "BATCH_MATMUL", "SOFTMAX", "GELU"):
                self.assertTrue(dtypes <= {np.dtype("int8"), np.dtype("int32")}, op)
            elif np.dtype("float32") in dtypes:
                float_ops.add(op["op_name"])
        # Only the float <-> int8 boundaries: the padding mask cast in, the logits out.
        self.assertEqual(float_ops, {"CAST", "QUANTIZE", "DEQUANTIZE"})
        self.assertEqual(sum(op["op_name"] == "FULLY_CONNECTED" for op in ops), fully_connected)

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
        return ops, tensors


class CheckpointTest(TestCase):
    def test_checkpoint_keeps_ranges(self):
        import tensorflow as tf

        qat = _calibrated_plain()
        inputs = tiny_inputs(seed=5)
        expected = qat(inputs)
        with tempfile.TemporaryDirectory() as tmp:
            path = tf.train.Checkpoint(model=qat).save(os.path.join(tmp, "ckpt"))
            revived = quantize_aware(_tiny_question_answerer(seed=9))
            tf.train.Checkpoint(model=revived).restore(path).assert_existing_objects_matched()
            ranges = [np.asarray(w) for w in revived.non_trainable_weights]
        expected_ranges = [np.asarray(w) for w in qat.non_trainable_weights]
        self.assertEqual(len(ranges), len(expected_ranges))
        for got, want in zip(ranges, expected_ranges):
            np.testing.assert_array_equal(got, want)
        self.assertAllClose(revived(inputs), expected, atol=1e-6)

    def test_calibrate_only_unseen_sets_missing_ranges(self):
        from keras_bert.export.quantization.qat import calibrate

        qat = _calibrated(_tiny_question_answerer())
        fake_quants = [l for l in qat._flatten_layers() if isinstance(l, FakeQuant)
                       and not l.fixed_range]
        before = [(float(l.range_min), float(l.range_max)) for l in fake_quants]
        missing = fake_quants[3]  # as if a checkpoint had no entry for it
        missing.seen.assign(0.0)
        missing.range_min.assign(0.0)
        missing.range_max.assign(0.0)
        calibrate(qat, _calibration_inputs(), batch_size=3, only_unseen=True)
        after = [(float(l.range_min), float(l.range_max)) for l in fake_quants]
        self.assertEqual(after[:3] + after[4:], before[:3] + before[4:])
        self.assertGreater(after[3][1] - after[3][0], 0.0)
        self.assertEqual(float(missing.seen), 1.0)

