"""Tests for the fine-tuning models: `BertClassifier`, `BertQuestionAnswerer`, `BertTokenClassifier`."""

import keras
import numpy as np
import pytest

from keras_bert.models.bert_classifier import BertClassifier
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_feature_extractor import BertFeatureExtractor
from keras_bert.models.bert_question_answerer import BertQuestionAnswerer
from keras_bert.models.bert_token_classifier import BertTokenClassifier
from tests.test_case import TINY, TestCase, randomize_weights, tiny_inputs

SCCE = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


class TaskModelsTest(TestCase):
    def encoder(self, randomize=True):
        # Random weights make numeric checks meaningful; training tests keep BERT's own init.
        encoder = BertEncoder(**TINY)
        if randomize:
            randomize_weights(encoder, scale=0.2)
        return encoder

    @pytest.mark.backend_portable
    def test_classifier_is_the_head_on_the_pooled_output(self):
        encoder = self.encoder()
        classifier = BertClassifier(encoder, num_classes=4, dropout=0.0)
        inputs = tiny_inputs()
        logits = classifier.predict(inputs, verbose=0)
        head = classifier.classification_head.dense
        pooled = encoder.predict(inputs, verbose=0)["pooled_output"]
        self.assertEqual(logits.shape, (3, 4))
        self.assertAllClose(logits, pooled @ head.kernel.numpy() + head.bias.numpy(), atol=1e-5)

    @pytest.mark.backend_portable
    def test_question_answerer_is_one_dense_over_the_sequence_output(self):
        encoder = self.encoder()
        qa = BertQuestionAnswerer(encoder)
        inputs = tiny_inputs()
        outputs = qa.predict(inputs, verbose=0)
        self.assertEqual(set(outputs), {"start_logits", "end_logits"})
        sequence = encoder.predict(inputs, verbose=0)["sequence_output"]  # [3, 7, H]
        dense = qa.span_head.dense
        logits = sequence @ dense.kernel.numpy() + dense.bias.numpy()  # [3, 7, 2]
        # google-research/bert's layout: column 0 of the span weights is the start, 1 the end.
        self.assertAllClose(outputs["start_logits"], logits[..., 0], atol=1e-5)
        self.assertAllClose(outputs["end_logits"], logits[..., 1], atol=1e-5)

    @pytest.mark.backend_portable
    def test_token_classifier_is_the_head_on_every_position(self):
        encoder = self.encoder()
        tagger = BertTokenClassifier(encoder, num_classes=5, dropout=0.0)
        inputs = tiny_inputs()
        logits = tagger.predict(inputs, verbose=0)
        sequence = encoder.predict(inputs, verbose=0)["sequence_output"]
        head = tagger.classification_head.dense
        self.assertEqual(logits.shape, (3, 7, 5))
        self.assertAllClose(logits, sequence @ head.kernel.numpy() + head.bias.numpy(), atol=1e-5)

    @pytest.mark.backend_portable
    def test_classifier_fits_a_separable_toy_task(self):
        classifier = BertClassifier(self.encoder(randomize=False), num_classes=2, dropout=0.0)
        inputs = tiny_inputs()
        labels = np.array([0, 1, 1])
        classifier.compile(optimizer=keras.optimizers.Adam(1e-2), loss=SCCE, metrics=["accuracy"])
        classifier.fit(inputs, labels, epochs=30, batch_size=3, verbose=0)
        loss, accuracy = classifier.evaluate(inputs, labels, verbose=0)
        self.assertEqual(accuracy, 1.0)

    @pytest.mark.backend_portable
    def test_question_answerer_fits_span_labels(self):
        qa = BertQuestionAnswerer(self.encoder(randomize=False))
        inputs = tiny_inputs()
        labels = {"start_logits": np.array([1, 2, 0]), "end_logits": np.array([3, 4, 1])}
        qa.compile(optimizer=keras.optimizers.Adam(1e-2), loss={"start_logits": SCCE, "end_logits": SCCE})
        history = qa.fit(inputs, labels, epochs=20, batch_size=3, verbose=0)
        self.assertLess(history.history["loss"][-1], 0.3 * history.history["loss"][0])
        outputs = qa.predict(inputs, verbose=0)
        np.testing.assert_array_equal(outputs["start_logits"].argmax(-1), labels["start_logits"])

    @pytest.mark.backend_portable
    def test_token_classifier_fits_with_padding_weights(self):
        tagger = BertTokenClassifier(self.encoder(randomize=False), num_classes=5, dropout=0.0)
        inputs = tiny_inputs()
        labels = np.random.default_rng(0).integers(0, 5, (3, 7))
        tagger.compile(optimizer=keras.optimizers.Adam(1e-2), loss=SCCE)
        history = tagger.fit(
            inputs, labels, sample_weight=inputs["padding_mask"].astype("float32"),
            epochs=20, batch_size=3, verbose=0,
        )
        self.assertLess(history.history["loss"][-1], 0.5 * history.history["loss"][0])

    @pytest.mark.backend_portable
    def test_serialization_and_saving(self):
        for model in (
            BertClassifier(self.encoder(), num_classes=4),
            BertQuestionAnswerer(self.encoder()),
            BertTokenClassifier(self.encoder(), num_classes=5),
        ):
            with self.subTest(type(model).__name__):
                self.run_serialization_test(model)
                self.run_model_saving_test(model, tiny_inputs())


class FeatureExtractorTest(TestCase):
    @pytest.mark.backend_portable
    def test_layer_minus_one_is_exactly_the_sequence_output(self):
        encoder = BertEncoder(**TINY)
        randomize_weights(encoder, scale=0.2)
        extractor = BertFeatureExtractor(encoder, layers=(-1, -2, 0))
        inputs = tiny_inputs()
        features = extractor.predict(inputs, verbose=0)
        outputs = encoder.predict(inputs, verbose=0)
        np.testing.assert_array_equal(features["layer_-1"], outputs["sequence_output"])
        np.testing.assert_array_equal(features["layer_0"], outputs["encoder_outputs"][0])
        # Two layers: -2 is the first layer's output, the same tensor as layer 0.
        np.testing.assert_array_equal(features["layer_-2"], outputs["encoder_outputs"][0])
        self.assertFalse(np.allclose(features["layer_-2"], features["layer_-1"]))

    def test_layer_indices_outside_the_encoder_are_refused(self):
        with self.assertRaisesRegex(ValueError, r"has 2 layers, so indices must be in \[-2, 1\]"):
            BertFeatureExtractor(BertEncoder(**TINY), layers=(-1, -3))

    def test_serialization(self):
        self.run_serialization_test(BertFeatureExtractor(BertEncoder(**TINY), layers=(-2,)))
