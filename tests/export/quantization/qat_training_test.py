"""keras_bert.export.quantization.qat_training: QAT fine-tuning, resumable, optionally distilled from the
float model."""

import json
import os
import tempfile

import numpy as np
import pytest

import keras_bert
from keras_bert.export.quantization.qat import _LayerNorm
from keras_bert.export.quantization.qat import quantize_aware
from keras_bert.export.quantization.qat_training import _HiddenDistillation
from keras_bert.export.quantization.qat_training import quantization_aware_finetune
from tests.test_case import TINY
from tests.test_case import TestCase
from tests.test_case import randomize_weights
from tests.test_case import tiny_inputs


def _qa_data(copies=6):
    batches = [tiny_inputs(seed=s, lengths=(7, 5 - s % 3, 3 + s % 4)) for s in range(copies)]
    inputs = {k: np.concatenate([b[k] for b in batches]) for k in batches[0]}
    lengths = inputs["padding_mask"].sum(axis=1)
    labels = {"start_logits": np.ones_like(lengths), "end_logits": lengths - 1}
    return inputs, labels


def _tiny_qa():
    model = keras_bert.BertQuestionAnswerer(keras_bert.BertEncoder(**TINY))
    randomize_weights(model, scale=0.3)
    return model


_SHARED = {}


def _plain_blocks():
    """(`_tiny_qa()`, `quantize_aware(it, with_blocks=True)`: one int8 scale per stream tensor
    and per layer's scores), built once: building the graph is the expensive part of the tests
    that only need its distillation losses or set its modes themselves."""
    if "plain" not in _SHARED:
        model = _tiny_qa()
        _SHARED["plain"] = (model, *quantize_aware(
            model, profile={"groups": [list(range(TINY["hidden_size"]))], "head_scales": False},
            with_blocks=True))
    return _SHARED["plain"]


class QatTrainingTest(TestCase):
    def test_bad_arguments_are_refused(self):
        inputs, labels = _qa_data()
        with tempfile.TemporaryDirectory() as out:
            with self.assertRaisesRegex(ValueError, r"teacher_weight must be in \[0, 1\]"):
                quantization_aware_finetune(_tiny_qa(), inputs, labels, out, 2, teacher_weight=1.5)
            with self.assertRaisesRegex(ValueError, "steps must be >= 1"):
                quantization_aware_finetune(_tiny_qa(), inputs, labels, out, 0)
            with self.assertRaisesRegex(ValueError, "range_lr_multiplier must be >= 0"):
                quantization_aware_finetune(_tiny_qa(), inputs, labels, out, 2,
                                            range_lr_multiplier=-1.0)
            with self.assertRaisesRegex(ValueError, "hidden_weight must be >= 0"):
                quantization_aware_finetune(_tiny_qa(), inputs, labels, out, 2,
                                            hidden_weight=-1.0)
            with self.assertRaisesRegex(ValueError, "attention_weight must be >= 0"):
                quantization_aware_finetune(_tiny_qa(), inputs, labels, out, 2,
                                            attention_weight=-1.0)
            self.assertEqual(os.listdir(out), [])

    @pytest.mark.large
    def test_distilled_targets_mix_labels_and_float_predictions(self):
        inputs, labels = _qa_data()
        model = _tiny_qa()
        float_start = np.asarray(model.predict(inputs, verbose=0)["start_logits"])
        with tempfile.TemporaryDirectory() as out:
            quantization_aware_finetune(model, inputs, labels, out, steps=2, batch_size=6,
                                        teacher_weight=0.25, log=lambda *_: None)
            teacher = np.load(os.path.join(out, "teacher.npz"))
            self.assertNotIn("teacher.npz.tmp.npz", os.listdir(out))  # renamed when complete
            probs = teacher["start_logits"]  # [n, S]: the float model's, before any QAT step
            real = inputs["padding_mask"] > 0
            self.assertEqual(probs.shape, real.shape)
            np.testing.assert_array_equal(probs[~real], 0.0)
            np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)
            exp = np.where(real, np.exp(float_start - float_start.max(1, keepdims=True)), 0.0)
            np.testing.assert_allclose(probs, exp / exp.sum(1, keepdims=True), atol=1e-5)
            with open(os.path.join(out, "state.json")) as f:
                self.assertEqual(json.load(f)["step"], 2)
            # Resuming to more steps keeps the teacher of the first run, not the trained model.
            before = os.path.getmtime(os.path.join(out, "teacher.npz"))
            quantization_aware_finetune(model, inputs, labels, out, steps=4, batch_size=6,
                                        teacher_weight=0.25, log=lambda *_: None)
            self.assertEqual(os.path.getmtime(os.path.join(out, "teacher.npz")), before)
            with open(os.path.join(out, "state.json")) as f:
                self.assertEqual(json.load(f)["step"], 4)

    @pytest.mark.large
    def test_learned_ranges_move_and_are_baked_in(self):
        from keras_bert.export.quantization.fake_quant import FakeQuant
        from keras_bert.export.quantization.fake_quant import fake_quant_layers

        inputs, labels = _qa_data()

        def ranges(qat):
            layers = [l for l in fake_quant_layers(qat, FakeQuant) if l.fixed_range is None]
            for layer in layers:  # baked: the converter reads range_min / range_max only
                self.assertEqual(layer.range_lr_multiplier, 0.0)
                self.assertFalse(layer.range_delta.trainable)
                np.testing.assert_array_equal(np.asarray(layer.range_delta), [0.0, 0.0])
            return np.array([(float(l.range_min), float(l.range_max)) for l in layers])

        runs = {}
        with tempfile.TemporaryDirectory() as out:
            for multiplier in (0.0, 100.0):
                run_dir = os.path.join(out, str(multiplier))
                runs[multiplier] = ranges(quantization_aware_finetune(
                    _tiny_qa(), inputs, labels, run_dir, steps=4, batch_size=6,
                    range_lr_multiplier=multiplier, log=lambda *_: None))
            # Resuming a finished run bakes the same learned ranges from its checkpoint.
            resumed = ranges(quantization_aware_finetune(
                _tiny_qa(), inputs, labels, os.path.join(out, "100.0"), steps=4,
                batch_size=6, range_lr_multiplier=100.0, log=lambda *_: None))
        frozen, learned = runs[0.0], runs[100.0]
        np.testing.assert_array_equal(resumed, learned)
        widths = frozen[:, 1] - frozen[:, 0]
        moved = np.abs(learned - frozen).max(axis=1) / widths
        # 4 Adam steps at the warmup's learning rates (2e-5 peak) x 100: each end moves at
        # most ~0.5 % of its width; most ranges move, none by more than that bound.
        self.assertGreater(np.mean(moved > 1e-5), 0.5)
        self.assertLess(moved.max(), 0.01)

    def test_hidden_loss_is_mean_squared_distance_over_real_tokens(self):
        rng = np.random.default_rng(0)
        student = [rng.normal(size=(3, 5, 4)).astype("float32") for _ in range(2)]
        teacher = [rng.normal(size=(3, 5, 4)).astype("float32") for _ in range(2)]
        mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0]], "int32")
        expected = np.mean([np.mean((s - t)[mask > 0] ** 2) for s, t in zip(student, teacher)])
        model, _, blocks_model = _plain_blocks()  # quantize_aware(model, with_blocks=True)
        distill = _HiddenDistillation(blocks_model, model.encoder, 1.0)
        actual = distill.hidden_loss(student, teacher, mask)
        np.testing.assert_allclose(float(actual), expected, rtol=1e-6)
        # Padded positions do not count, whatever they hold.
        moved = [np.where(mask[..., None] > 0, s, 1e3) for s in student]
        np.testing.assert_allclose(float(distill.hidden_loss(moved, teacher, mask)), expected,
                                   rtol=1e-6)

    def test_attention_loss_is_squared_distance_over_real_queries(self):
        rng = np.random.default_rng(0)

        def distributions(shape):
            logits = rng.normal(size=shape) * 3.0
            return (np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)).astype("float32")

        shape = (3, 2, 5, 5)  # [B, N, S, S]
        student = [distributions(shape) for _ in range(2)]
        student[0][0, 0, 0] = [0.0, 0.0, 1.0, 0.0, 0.0]  # an int8 softmax row with zeros
        teacher = [distributions(shape) for _ in range(2)]
        mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0]], "int32")
        real = np.broadcast_to(mask[:, None, :] > 0, shape[:3])
        expected = np.mean([((s - t) ** 2).sum(-1)[real].mean() for s, t in zip(student, teacher)])
        model, _, blocks_model = _plain_blocks()  # quantize_aware(model, with_blocks=True)
        distill = _HiddenDistillation(blocks_model, model.encoder, 1.0, attention_weight=1.0)
        actual = distill.attention_loss(student, teacher, mask)
        np.testing.assert_allclose(float(actual), expected, rtol=1e-5)
        # Padded query rows do not count, whatever they hold; equal distributions give 0.
        moved = [np.where(real[..., None], s, 0.5) for s in student]
        np.testing.assert_allclose(float(distill.attention_loss(moved, teacher, mask)), expected,
                                   rtol=1e-5)
        self.assertEqual(float(distill.attention_loss(teacher, teacher, mask)), 0.0)

    def test_recorded_attention_is_the_float_models_without_fake_quant(self):
        from keras_bert.export.quantization.fake_quant import set_fake_quant_mode
        from keras_bert.export.quantization.qat import calibrate
        from keras_bert.export.quantization.qat import record_attention
        from keras_bert.export.quantization.qat_training import _AttentionRecorder
        from keras_bert.models.bert_encoder import encode

        inputs, _ = _qa_data()
        model = _plain_blocks()[0]  # _tiny_qa(), with its plain QAT graph already built
        # Independent of both spellings: softmax(q k^T / sqrt(D)) from the float layers' weights.
        first = model.encoder.transformer_layers[0].attention
        x = np.asarray(model.encoder.embeddings(inputs["token_ids"], inputs["segment_ids"]))
        heads, size = 2, TINY["hidden_size"] // 2

        def split(dense):  # [B, S, H] -> [B, N, S, D]
            t = x @ np.asarray(dense.kernel) + np.asarray(dense.bias)
            return t.reshape(*t.shape[:2], heads, size).transpose(0, 2, 1, 3)

        scores = split(first.query_dense) @ split(first.key_dense).transpose(0, 1, 3, 2)
        scores = scores / np.sqrt(size) + np.where(inputs["padding_mask"] > 0, 0.0, -1e9)[:, None, None]
        numpy_probs = np.exp(scores - scores.max(-1, keepdims=True))
        numpy_probs /= numpy_probs.sum(-1, keepdims=True)
        recorder = _AttentionRecorder()
        encode(model.encoder.embeddings, model.encoder.transformer_layers, inputs,
               "bidirectional", recorder)
        self.assertEqual(len(recorder.probs), TINY["num_hidden_layers"])
        np.testing.assert_allclose(np.asarray(recorder.probs[0]), numpy_probs, atol=1e-5)
        for head_scales in (False, True):
            if head_scales:
                qat, blocks_model = quantize_aware(
                    model, profile={"groups": [list(range(TINY["hidden_size"]))],
                                    "head_scales": head_scales}, with_blocks=True)
            else:  # the same profile: the shared graph (calibrated and its modes set here)
                _, qat, blocks_model = _plain_blocks()
            calibrate(qat, inputs, batch_size=6)
            for mode in ("off", "quantize"):
                set_fake_quant_mode(qat, mode)
                recorded = []
                record_attention(blocks_model, recorded.append)
                blocks_model(inputs)
                record_attention(blocks_model, None)
                blocks_model(inputs)  # stopped: nothing more is recorded
                self.assertEqual(len(recorded), TINY["num_hidden_layers"])
                for float_probs, int8_probs in zip(recorder.probs, recorded):
                    self.assertEqual(int8_probs.shape, float_probs.shape)
                    if mode == "off":
                        np.testing.assert_allclose(np.asarray(int8_probs),
                                                   np.asarray(float_probs), atol=1e-5)
                    else:  # on TFLite's softmax grid (steps of 1/256), near the float model's
                        steps = np.asarray(int8_probs) * 256.0
                        np.testing.assert_allclose(steps, np.round(steps), atol=1e-3)
                        real = np.broadcast_to(inputs["padding_mask"][:, None, None, :] > 0,
                                               steps.shape)
                        # Measured: at most 2.7 steps off (upstream roundings add to the grid's).
                        self.assertLess(np.abs(np.asarray(int8_probs) -
                                               np.asarray(float_probs))[real].max(), 4.0 / 256)

    @pytest.mark.large
    def test_attention_term_holds_attention_near_the_float_model(self):
        from keras_bert.export.quantization.qat import record_attention
        from keras_bert.export.quantization.qat_training import _AttentionRecorder
        from keras_bert.models.bert_encoder import encode

        inputs, labels = _qa_data()
        float_model = _tiny_qa()
        recorder = _AttentionRecorder()
        encode(float_model.encoder.embeddings, float_model.encoder.transformer_layers, inputs,
               "bidirectional", recorder)
        real = np.broadcast_to(inputs["padding_mask"][:, None, :] > 0,
                               recorder.probs[0].shape[:3])  # [B, N, S] real query rows
        distances = {}
        with tempfile.TemporaryDirectory() as out:
            for weight in (0.0, 30.0):
                run_dir = os.path.join(out, str(weight))
                qat = quantization_aware_finetune(_tiny_qa(), inputs, labels, run_dir, steps=12,
                                                  batch_size=6, learning_rate=3e-2,
                                                  warmup_steps=1, hidden_weight=1e-3,
                                                  attention_weight=weight, log=lambda *_: None)
                int8_probs = []  # the trained int8 graph's attention
                record_attention(qat, int8_probs.append)
                qat(inputs)
                distances[weight] = np.mean([
                    ((np.asarray(p) - np.asarray(f)) ** 2).sum(-1)[real].mean()
                    for p, f in zip(int8_probs, recorder.probs)])
            with open(os.path.join(run_dir, "state.json")) as f:
                self.assertIn("attention_loss", json.load(f))
        # Measured: 1.7e-4 without the term, 3.5e-5 with it (the int8 grid's own error, 3.8e-5
        # before training). The task loss alone moves the int8 graph's attention maps.
        self.assertLess(distances[30.0], 0.5 * distances[0.0], distances)

    @pytest.mark.large
    def test_hidden_term_holds_blocks_near_the_float_model(self):
        from keras_bert.export.quantization.fake_quant import set_fake_quant_mode

        inputs, labels = _qa_data()
        float_blocks = _tiny_qa().encoder(inputs)["encoder_outputs"]
        distances = {}
        with tempfile.TemporaryDirectory() as out:
            for weight in (0.0, 30.0):
                run_dir = os.path.join(out, str(weight))
                model = _tiny_qa()
                quantization_aware_finetune(model, inputs, labels, run_dir, steps=12,
                                            batch_size=6, learning_rate=3e-3, warmup_steps=1,
                                            hidden_weight=weight, log=lambda *_: None)
                # The trained float weights (QAT trains `model` in place), fake quant aside.
                blocks = model.encoder(inputs)["encoder_outputs"]
                real = inputs["padding_mask"] > 0
                distances[weight] = np.mean([np.mean((np.asarray(b) - np.asarray(f))[real] ** 2)
                                             for b, f in zip(blocks, float_blocks)])
            with open(os.path.join(run_dir, "state.json")) as f:
                state = json.load(f)
            self.assertEqual(state["step"], 12)
            self.assertIn("hidden_loss", state)
            # Resuming the finished run trains nothing more and keeps the step count.
            model = _tiny_qa()
            qat = quantization_aware_finetune(model, inputs, labels, run_dir, steps=12,
                                              batch_size=6, learning_rate=3e-3, warmup_steps=1,
                                              hidden_weight=30.0, log=lambda *_: None)
            set_fake_quant_mode(qat, "off")
            resumed = model.encoder(inputs)["encoder_outputs"]
            np.testing.assert_allclose(np.asarray(resumed[-1]), np.asarray(blocks[-1]), atol=1e-5)
        # Measured: 1.7e-3 without the term, 9.0e-5 with it (19x closer). The task loss alone
        # moves the blocks away from the float model; the hidden term holds them near it.
        self.assertLess(distances[30.0], 0.5 * distances[0.0], distances)

    @pytest.mark.large
    def test_a_resumed_run_keeps_the_graph_of_its_profile(self):
        # A profile written before split_variance existed (no key) stays the summed graph,
        # and asking for the split one on that directory says why it is not used.
        inputs, labels = _qa_data()
        width = TINY["hidden_size"]
        old = {"groups": [[3], [d for d in range(width) if d != 3]], "head_scales": False}
        with tempfile.TemporaryDirectory() as out:
            with open(os.path.join(out, "int8_profile.json"), "w") as f:
                json.dump(old, f)
            lines = []
            qat = quantization_aware_finetune(_tiny_qa(), inputs, labels, out, steps=1,
                                              batch_size=6, log=lines.append)
            with open(os.path.join(out, "int8_profile.json")) as f:
                self.assertEqual(json.load(f), old)
        self.assertTrue(any("keeps split_variance=False" in str(line) for line in lines), lines)
        layer_norms = [layer for layer in qat._flatten_layers(recursive=True)
                       if isinstance(layer, _LayerNorm)]
        self.assertTrue(layer_norms)
        self.assertFalse(any(layer.split_variance for layer in layer_norms))

    @pytest.mark.large
    def test_without_dropout_qat_trains_the_graph_it_exports(self):
        inputs, labels = _qa_data()
        config = dict(TINY, hidden_dropout_prob=0.3, attention_probs_dropout_prob=0.3)
        for dropout in (True, False):
            model = keras_bert.BertQuestionAnswerer(keras_bert.BertEncoder(**config))
            randomize_weights(model, scale=0.3)
            with tempfile.TemporaryDirectory() as out:
                qat = quantization_aware_finetune(model, inputs, labels, out, steps=1,
                                                  batch_size=6, hidden_weight=1.0,
                                                  dropout=dropout, log=lambda *_: None)
            first, second, inference = (
                np.asarray(qat(inputs, training=t)["start_logits"]) for t in (True, True, False)
            )
            if dropout:  # two training-mode passes draw different masks
                self.assertGreater(np.abs(first - second).max(), 1e-3)
            else:  # with the ranges frozen, training mode is the inference graph
                np.testing.assert_array_equal(first, second)
                np.testing.assert_allclose(first, inference, rtol=1e-6, atol=1e-6)
