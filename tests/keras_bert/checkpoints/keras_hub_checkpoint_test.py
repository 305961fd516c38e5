"""keras-hub `BertBackbone` import and export: parity <= 1e-5 with the same weights."""

import keras_hub
import numpy as np

from keras_bert.checkpoints.keras_hub_checkpoint import encoder_from_keras_hub, encoder_to_keras_hub
from keras_bert.models.bert_encoder import BertEncoder
from tests.test_case import TINY, TestCase, randomize_weights, tiny_inputs


def tiny_backbone():
    backbone = keras_hub.models.BertBackbone(
        vocabulary_size=23, num_layers=2, num_heads=2, hidden_dim=8, intermediate_dim=12,
        max_sequence_length=16, dropout=0.0,
    )
    randomize_weights(backbone, seed=2)
    return backbone


class KerasHubCheckpointTest(TestCase):
    def test_import_matches_backbone(self):
        backbone = tiny_backbone()
        encoder = encoder_from_keras_hub(backbone)
        self.assertEqual(encoder.hidden_act, "gelu_new")  # keras-hub's GELU is the tanh form.
        inputs = tiny_inputs(seed=7)
        expected = backbone.predict(inputs, verbose=0)
        actual = encoder.predict(inputs, verbose=0)
        self.assertAllClose(actual["sequence_output"], expected["sequence_output"], atol=1e-5)
        self.assertAllClose(actual["pooled_output"], expected["pooled_output"], atol=1e-5)

    def test_export_round_trips(self):
        encoder = BertEncoder(**{**TINY, "hidden_act": "gelu_new"})
        randomize_weights(encoder, seed=3)
        backbone = encoder_to_keras_hub(encoder)
        inputs = tiny_inputs(seed=8)
        self.assertAllClose(
            backbone.predict(inputs, verbose=0)["sequence_output"],
            encoder.predict(inputs, verbose=0)["sequence_output"],
            atol=1e-5,
        )

    def test_export_refuses_exact_gelu(self):
        with self.assertRaisesRegex(ValueError, "tanh GELU"):
            encoder_to_keras_hub(BertEncoder(**TINY))
