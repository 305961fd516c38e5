"""export.quantization.qat_training: QAT fine-tuning, resumable, optionally distilled from the
float model."""

import json
import os
import tempfile

import numpy as np
import pytest

import keras_bert
from export.quantization.qat import quantize_aware
from export.quantization.qat_training import _HiddenDistillation
from export.quantization.qat_training import quantization_aware_finetune
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
        from export.quantization.fake_quant import FakeQuant
        from export.quantization.fake_quant import fake_quant_layers

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
        model = _tiny_qa()
        distill = _HiddenDistillation(quantize_aware(model, with_blocks=True)[1], model.encoder, 1.0)
        actual = distill.hidden_loss(student, teacher, mask)
        np.testing.assert_allclose(float(actual), expected, rtol=1e-6)
        # Padded positions do not count, whatever they hold.
        moved = [np.where(mask[..., None] > 0, s, 1e3) for s in student]
        np.testing.assert_allclose(float(distill.hidden_loss(moved, teacher, mask)), expected,
                                   rtol=1e-6)

    @pytest.mark.large
    def test_hidden_term_holds_blocks_near_the_float_model(self):
        from export.quantization.fake_quant import set_fake_quant_mode

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
