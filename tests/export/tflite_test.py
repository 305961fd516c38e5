"""Early export proof: the tiny encoder converts to TFLite with builtin ops only and matches Keras."""

import numpy as np

from export.tflite import export_tflite, run_tflite, tflite_op_names
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_question_answerer import BertQuestionAnswerer
from tests.test_case import TINY, TestCase, randomize_weights, tiny_inputs


class TfliteTest(TestCase):
    def test_tiny_encoder_converts_with_builtins_and_matches_keras(self):
        import tempfile

        encoder = BertEncoder(**TINY)
        randomize_weights(encoder, scale=0.3)
        path = export_tflite(encoder, tempfile.mkdtemp() + "/encoder.tflite", sequence_length=7, batch_size=3)
        ops = tflite_op_names(path)
        # Builtins only (a Flex op would be named "FlexXxx" / "DELEGATE"), and the exact GELU
        # maps to the builtin GELU kernel.
        self.assertFalse([op for op in ops if op.startswith("Flex") or op == "CUSTOM"], ops)
        self.assertIn("GELU", ops)
        inputs = tiny_inputs(seed=9)
        expected = encoder.predict(inputs, verbose=0)
        actual = run_tflite(path, inputs)
        self.assertAllClose(actual["sequence_output"], expected["sequence_output"], atol=1e-5)
        self.assertAllClose(actual["pooled_output"], expected["pooled_output"], atol=1e-5)

    def test_question_answerer_converts_and_matches(self):
        import tempfile

        qa = BertQuestionAnswerer(BertEncoder(**TINY))
        randomize_weights(qa, scale=0.3)
        path = export_tflite(qa, tempfile.mkdtemp() + "/qa.tflite", sequence_length=7, batch_size=1)
        inputs = {k: v[1:2] for k, v in tiny_inputs(seed=10).items()}
        expected = qa.predict(inputs, verbose=0)
        actual = run_tflite(path, inputs)
        self.assertAllClose(actual["start_logits"], expected["start_logits"], atol=1e-5)
        self.assertAllClose(actual["end_logits"], expected["end_logits"], atol=1e-5)
