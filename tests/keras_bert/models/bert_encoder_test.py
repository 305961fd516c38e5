"""Tests for `BertEncoder`: contracts, the NumPy oracle, padding invariance."""

import keras
import numpy as np
import pytest

from keras_bert.checkpoints.weight_map import collect_weights
from keras_bert.models.bert_config import BertConfig
from keras_bert.models.bert_encoder import BertEncoder
from tests.reference import numpy_bert
from tests.test_case import TINY, TestCase, randomize_weights, tiny_inputs, to_numpy


class BertEncoderTest(TestCase):
    def make_encoder(self, **overrides):
        encoder = BertEncoder(**{**TINY, **overrides})
        randomize_weights(encoder)
        return encoder

    @pytest.mark.backend_portable
    def test_output_structure_and_shapes(self):
        outputs = self.make_encoder()(tiny_inputs())
        self.assertEqual(tuple(outputs["sequence_output"].shape), (3, 7, 8))
        self.assertEqual(tuple(outputs["pooled_output"].shape), (3, 8))
        self.assertEqual([tuple(x.shape) for x in outputs["encoder_outputs"]], [(3, 7, 8)] * 2)
        self.assertAllClose(outputs["encoder_outputs"][-1], outputs["sequence_output"], atol=0)

    @pytest.mark.backend_portable
    def test_matches_numpy_reference(self):
        for hidden_act in ("gelu", "gelu_new"):
            encoder = self.make_encoder(hidden_act=hidden_act)
            inputs = tiny_inputs(seed=4)
            outputs = encoder.predict(inputs, verbose=0)
            sequence, pooled, layers = numpy_bert.encoder(
                collect_weights(encoder), encoder.bert_config.to_dict(), **inputs
            )
            self.assertAllClose(outputs["sequence_output"], sequence, atol=1e-5, msg=hidden_act)
            self.assertAllClose(outputs["pooled_output"], pooled, atol=1e-5, msg=hidden_act)
            self.assertAllClose(outputs["encoder_outputs"], layers, atol=1e-5, msg=hidden_act)

    @pytest.mark.backend_portable
    def test_padding_positions_do_not_change_unpadded_outputs(self):
        encoder = self.make_encoder()
        inputs = tiny_inputs(seed=5)
        changed = {k: v.copy() for k, v in inputs.items()}
        rng = np.random.default_rng(6)
        pad = inputs["padding_mask"] == 0
        changed["token_ids"][pad] = rng.integers(1, 23, pad.sum())
        changed["segment_ids"][pad] = 1
        a, b = encoder.predict(inputs, verbose=0), encoder.predict(changed, verbose=0)
        real = inputs["padding_mask"].astype(bool)
        self.assertAllClose(a["sequence_output"][real], b["sequence_output"][real], atol=1e-6)
        self.assertAllClose(a["pooled_output"], b["pooled_output"], atol=1e-6)
        # The changed tokens did reach the padded rows: the test would notice a no-op.
        self.assertFalse(np.allclose(a["sequence_output"][~real], b["sequence_output"][~real]))

    def test_serialization_and_saving(self):
        encoder = self.make_encoder()
        self.run_serialization_test(encoder)
        self.run_model_saving_test(encoder, tiny_inputs())

    def test_from_bert_config_and_config_round_trip(self):
        config = BertConfig(**TINY)
        encoder = BertEncoder.from_bert_config(config, name="enc")
        self.assertEqual(encoder.bert_config, config)
        self.assertEqual(encoder.name, "enc")
        self.assertEqual({k: encoder.get_config()[k] for k in config.to_dict()}, config.to_dict())

    def test_fit_evaluate_predict(self):
        encoder = self.make_encoder()
        inputs = tiny_inputs()
        targets = {
            "sequence_output": np.zeros((3, 7, 8), "float32"),
            "pooled_output": np.zeros((3, 8), "float32"),
            "encoder_outputs": [np.zeros((3, 7, 8), "float32")] * 2,
        }
        encoder.compile(
            optimizer="adam",
            loss={"sequence_output": "mse", "pooled_output": "mse", "encoder_outputs": [None, None]},
        )
        history = encoder.fit(inputs, targets, epochs=3, batch_size=3, verbose=0)
        self.assertLess(history.history["loss"][-1], history.history["loss"][0])
        # evaluate() is the compiled loss of predict()'s outputs: the two MSEs (zero targets),
        # summed; no dropout or regularization in TINY.
        outputs = encoder.predict(inputs, verbose=0)
        expected = np.mean(outputs["sequence_output"] ** 2) + np.mean(outputs["pooled_output"] ** 2)
        self.assertAllClose(encoder.evaluate(inputs, targets, verbose=0)[0], expected, rtol=1e-5)

    def test_dropout_only_in_training(self):
        encoder = self.make_encoder(hidden_dropout_prob=0.3, attention_probs_dropout_prob=0.3)
        inputs = tiny_inputs()
        a = encoder(inputs, training=False)["sequence_output"]
        b = encoder(inputs, training=False)["sequence_output"]
        c = encoder(inputs, training=True)["sequence_output"]
        self.assertAllClose(a, b, atol=0)
        self.assertFalse(np.allclose(np.asarray(a), np.asarray(c)))

    def test_too_long_input_is_a_clear_error(self):
        encoder = self.make_encoder()
        inputs = tiny_inputs(seq=17, lengths=(17, 17, 17))
        with pytest.raises(ValueError, match="exceeds max_position_embeddings=16"):
            encoder(inputs)
        # Also when the graph was traced with an unknown length (e.g. a served SavedModel).
        import tensorflow as tf

        spec = {k: tf.TensorSpec((None, None), tf.int32) for k in inputs}
        fn = tf.function(lambda x: encoder(x)["pooled_output"], input_signature=[spec])
        with pytest.raises(tf.errors.InvalidArgumentError, match="exceeds max_position_embeddings=16"):
            fn(inputs)

    def test_bad_config_is_rejected_before_building(self):
        with pytest.raises(ValueError, match="multiple of num_attention_heads"):
            BertEncoder(**{**TINY, "num_attention_heads": 3})

    def test_mixed_precision_runs_and_stays_close(self):
        encoder = self.make_encoder()
        mixed = BertEncoder(**TINY, dtype="mixed_bfloat16")
        mixed.set_weights(encoder.get_weights())
        a = encoder.predict(tiny_inputs(), verbose=0)["pooled_output"]
        b = mixed.predict(tiny_inputs(), verbose=0)["pooled_output"]
        self.assertEqual(keras.backend.standardize_dtype(mixed.embeddings.compute_dtype), "bfloat16")
        # Measured 0.0037 (2026-11-25, AMD EPYC Zen 4; seeded weights), about one bf16 rounding
        # step (2^-8) of the tanh-bounded output; the bound allows 2.7x that.
        self.assertAllClose(b.astype("float32"), a, atol=0.01)
        self.assertFalse(np.array_equal(b.astype("float32"), a))  # it did compute in bf16


class AttentionPatternTest(TestCase):
    """`attention_pattern`: what each output position can and cannot depend on."""

    def changed_positions(self, pattern, changed_at, num_hidden_layers=2):
        """Per position, whether its last-layer output moves when token `changed_at` changes."""
        encoder = BertEncoder(
            **{**TINY, "num_hidden_layers": num_hidden_layers}, attention_pattern=pattern
        )
        randomize_weights(encoder)
        inputs = tiny_inputs(seed=5, lengths=(7, 7, 7))
        other = dict(inputs, token_ids=inputs["token_ids"].copy())
        other["token_ids"][:, changed_at] = (other["token_ids"][:, changed_at] % 22) + 1
        a = to_numpy(encoder(inputs)["sequence_output"])
        b = to_numpy(encoder(other)["sequence_output"])
        return np.abs(a - b).max(axis=(0, 2)) > 1e-6  # [S]

    @pytest.mark.backend_portable
    def test_causal_blocks_every_future_position(self):
        for changed_at in range(1, 7):
            moved = self.changed_positions("causal", changed_at)
            self.assertFalse(moved[:changed_at].any(), msg=f"token {changed_at} reached earlier outputs")
            self.assertTrue(moved[changed_at:].all(), msg=f"token {changed_at}")

    @pytest.mark.backend_portable
    def test_hide_next_leaks_through_a_second_layer_only(self):
        # Position 2 cannot attend to token 3 directly ...
        self.assertFalse(self.changed_positions("hide_next", 3, num_hidden_layers=1)[2])
        # ... but with two layers token 3 reaches it through positions that did attend to it.
        self.assertTrue(self.changed_positions("hide_next", 3, num_hidden_layers=2)[2])

    def test_bidirectional_is_the_default_and_sees_everything(self):
        self.assertEqual(BertEncoder(**TINY).attention_pattern, "bidirectional")
        self.assertTrue(self.changed_positions("bidirectional", 6).all())

    def test_pattern_survives_get_config(self):
        encoder = BertEncoder(**TINY, attention_pattern="causal")
        self.assertEqual(BertEncoder.from_config(encoder.get_config()).attention_pattern, "causal")

    def test_rejects_unknown_pattern(self):
        with self.assertRaisesRegex(ValueError, "attention_pattern='left' is not one of"):
            BertEncoder(**TINY, attention_pattern="left")
