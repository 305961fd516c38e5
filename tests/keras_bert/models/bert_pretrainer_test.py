"""Tests for `BertPretrainer`."""

import keras
import numpy as np
import pytest

from keras_bert.checkpoints.weight_map import collect_weights
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_pretrainer import BertPretrainer
from tests.reference import numpy_bert
from tests.test_case import TINY, TestCase, randomize_weights, tiny_inputs


def pretraining_inputs(seed=0):
    inputs = tiny_inputs(seed=seed)
    inputs["mask_positions"] = np.array([[1, 3, 6, 0, 0], [1, 2, 4, 0, 0], [1, 0, 0, 0, 0]], "int32")
    return inputs


class BertPretrainerTest(TestCase):
    def make_pretrainer(self):
        pretrainer = BertPretrainer(BertEncoder(**TINY))
        randomize_weights(pretrainer)
        return pretrainer

    @pytest.mark.backend_portable
    def test_matches_numpy_reference_heads(self):
        pretrainer = self.make_pretrainer()
        inputs = pretraining_inputs()
        outputs = pretrainer.predict(inputs, verbose=0)
        weights = collect_weights(pretrainer)
        config = pretrainer.encoder.bert_config.to_dict()
        encoder_inputs = {k: v for k, v in inputs.items() if k != "mask_positions"}
        sequence, pooled, _ = numpy_bert.encoder(weights, config, **encoder_inputs)
        mlm, nsp = numpy_bert.pretraining_heads(
            weights, config, sequence, pooled, inputs["mask_positions"]
        )
        self.assertEqual(outputs["mlm_logits"].shape, (3, 5, 23))
        self.assertAllClose(outputs["mlm_logits"], mlm, atol=1e-4)
        self.assertAllClose(outputs["nsp_logits"], nsp, atol=1e-5)

    def test_mlm_projection_is_tied_to_the_token_embedding(self):
        pretrainer = self.make_pretrainer()
        token_embedding = pretrainer.encoder.token_embedding.embeddings
        head_weights = pretrainer.masked_lm_head.weights
        self.assertTrue(any(w is token_embedding for w in head_weights))
        # One copy in the model, not two.
        self.assertEqual(sum(w is token_embedding for w in pretrainer.weights), 1)

    def test_loss_decreases_on_a_repeated_batch(self):
        pretrainer = BertPretrainer(BertEncoder(**TINY))
        inputs = pretraining_inputs()
        labels = {
            "mlm_logits": np.random.default_rng(0).integers(0, 23, (3, 5)),
            "nsp_logits": np.array([0, 1, 0]),
        }
        weights = {
            "mlm_logits": np.array([[1, 1, 1, 0, 0], [1, 1, 1, 0, 0], [1, 0, 0, 0, 0]], "float32"),
            "nsp_logits": np.ones(3, "float32"),
        }
        pretrainer.compile(
            optimizer=keras.optimizers.Adam(1e-2),
            loss={
                "mlm_logits": keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                "nsp_logits": keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            },
        )
        history = pretrainer.fit(
            inputs, labels, sample_weight=weights, epochs=20, batch_size=3, verbose=0
        )
        losses = history.history["loss"]
        self.assertTrue(np.all(np.isfinite(losses)))
        self.assertLess(losses[-1], 0.5 * losses[0])

    def test_serialization_and_saving(self):
        pretrainer = self.make_pretrainer()
        self.run_serialization_test(pretrainer)
        self.run_model_saving_test(pretrainer, pretraining_inputs())

    def test_checkpoint_items_warm_start_an_encoder(self):
        import tensorflow as tf

        pretrainer = self.make_pretrainer()
        self.assertEqual(set(pretrainer.checkpoint_items), {"encoder", "masked_lm", "next_sentence"})
        path = tf.train.Checkpoint(**pretrainer.checkpoint_items).write(self.get_temp_dir())
        fresh = BertEncoder(**TINY)
        status = tf.train.Checkpoint(encoder=fresh).read(path)
        status.expect_partial().assert_existing_objects_matched()
        inputs = tiny_inputs()
        self.assertAllClose(fresh(inputs)["pooled_output"], pretrainer.encoder(inputs)["pooled_output"])

    def get_temp_dir(self):
        import tempfile

        return tempfile.mkdtemp() + "/ckpt"
