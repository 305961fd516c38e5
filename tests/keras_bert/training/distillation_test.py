"""Teacher probabilities and mixed targets: what a distilled student trains towards."""

import keras
import numpy as np

from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_question_answerer import BertQuestionAnswerer
from keras_bert.training.distillation import mix_targets, teacher_probabilities
from tests.test_case import TINY, TestCase, randomize_weights, tiny_inputs


class TeacherProbabilitiesTest(TestCase):
    def test_span_distributions_skip_padding_and_follow_the_logits(self):
        qa = BertQuestionAnswerer(BertEncoder(**TINY))
        randomize_weights(qa, scale=0.3)
        inputs = tiny_inputs(seed=3)
        mask = np.asarray(inputs["padding_mask"]) > 0
        self.assertFalse(mask.all())  # the fixture has padded rows
        probabilities = teacher_probabilities(qa, inputs, batch_size=2)
        logits = qa.predict(inputs, verbose=0)
        for name in ("start_logits", "end_logits"):
            p = probabilities[name]
            self.assertEqual(p.dtype, np.float32)
            self.assertAllClose(p.sum(-1), np.ones(len(p)), atol=1e-6)
            self.assertTrue((p[~mask] == 0).all())
            # float64 softmax over the real positions only, row by row
            for row in range(len(p)):
                z = np.asarray(logits[name][row], np.float64)[mask[row]]
                want = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
                self.assertAllClose(p[row][mask[row]], want, atol=1e-6)


class MixTargetsTest(TestCase):
    def test_values(self):
        soft = np.array([[0.1, 0.7, 0.2], [0.5, 0.25, 0.25]], np.float32)
        mixed = mix_targets(np.array([2, 0]), soft, 0.25)
        np.testing.assert_allclose(mixed, [[0.025, 0.175, 0.8], [0.875, 0.0625, 0.0625]], atol=1e-7)
        np.testing.assert_allclose(mix_targets(np.array([2, 0]), soft, 0.0), [[0, 0, 1], [1, 0, 0]])
        np.testing.assert_allclose(mix_targets(np.array([2, 0]), {"logits": soft}, 1.0), soft)

    def test_cross_entropy_is_the_weighted_sum_of_gold_and_teacher_terms(self):
        rng = np.random.default_rng(0)
        soft = rng.dirichlet(np.ones(7), size=5).astype(np.float32)
        gold = rng.integers(0, 7, 5)
        student = rng.normal(size=(5, 7)).astype(np.float32)
        weight = 0.4
        ce = keras.losses.CategoricalCrossentropy(from_logits=True)
        sparse = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        mixed = float(ce(mix_targets(gold, soft, weight), student))
        parts = (1 - weight) * float(sparse(gold, student)) + weight * float(ce(soft, student))
        np.testing.assert_allclose(mixed, parts, atol=1e-5)

    def test_dicts_and_errors(self):
        soft = {"start_logits": np.full((2, 4), 0.25, np.float32), "end_logits": np.eye(4)[[1, 2]]}
        mixed = mix_targets({"start_logits": np.array([0, 3]), "end_logits": np.array([1, 2])}, soft, 0.5)
        np.testing.assert_allclose(mixed["start_logits"][0], [0.625, 0.125, 0.125, 0.125])
        np.testing.assert_allclose(mixed["end_logits"], np.eye(4)[[1, 2]])
        with self.assertRaisesRegex(ValueError, r"weight must be in \[0, 1\]"):
            mix_targets(np.array([0]), np.ones((1, 2)) / 2, 1.5)
        with self.assertRaisesRegex(ValueError, "do not index"):
            mix_targets(np.array([0, 1, 1]), np.ones((2, 2)) / 2, 0.5)
