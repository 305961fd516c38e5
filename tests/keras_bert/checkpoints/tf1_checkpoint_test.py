"""google-research TF1 checkpoints: written here with the original names and shapes, read back."""

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.checkpoints.tf1_checkpoint import (
    encoder_from_tf1_checkpoint,
    load_tf1_checkpoint,
    save_tf1_checkpoint,
)
from keras_bert.models.bert_config import BertConfig
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.bert_question_answerer import BertQuestionAnswerer
from tests.reference import numpy_bert
from tests.test_case import TINY, TestCase, tiny_inputs

V, H, I, P, T, L = 23, 8, 12, 16, 2, 2


def google_variable_shapes():
    """The variables of google-research/bert's run_pretraining.py model for the tiny config."""
    shapes = {
        "bert/embeddings/word_embeddings": (V, H),
        "bert/embeddings/token_type_embeddings": (T, H),
        "bert/embeddings/position_embeddings": (P, H),
        "bert/embeddings/LayerNorm/beta": (H,),
        "bert/embeddings/LayerNorm/gamma": (H,),
        "bert/pooler/dense/kernel": (H, H),
        "bert/pooler/dense/bias": (H,),
        "cls/predictions/transform/dense/kernel": (H, H),
        "cls/predictions/transform/dense/bias": (H,),
        "cls/predictions/transform/LayerNorm/beta": (H,),
        "cls/predictions/transform/LayerNorm/gamma": (H,),
        "cls/predictions/output_bias": (V,),
        "cls/seq_relationship/output_weights": (2, H),
        "cls/seq_relationship/output_bias": (2,),
    }
    for i in range(L):
        p = f"bert/encoder/layer_{i}"
        for name in ("query", "key", "value"):
            shapes[f"{p}/attention/self/{name}/kernel"] = (H, H)
            shapes[f"{p}/attention/self/{name}/bias"] = (H,)
        shapes[f"{p}/attention/output/dense/kernel"] = (H, H)
        shapes[f"{p}/attention/output/dense/bias"] = (H,)
        shapes[f"{p}/attention/output/LayerNorm/beta"] = (H,)
        shapes[f"{p}/attention/output/LayerNorm/gamma"] = (H,)
        shapes[f"{p}/intermediate/dense/kernel"] = (H, I)
        shapes[f"{p}/intermediate/dense/bias"] = (I,)
        shapes[f"{p}/output/dense/kernel"] = (I, H)
        shapes[f"{p}/output/dense/bias"] = (H,)
        shapes[f"{p}/output/LayerNorm/beta"] = (H,)
        shapes[f"{p}/output/LayerNorm/gamma"] = (H,)
    return shapes


def write_checkpoint(prefix, weights):
    names = sorted(weights)
    tf.raw_ops.SaveV2(
        prefix=str(prefix), tensor_names=names, shape_and_slices=[""] * len(names),
        tensors=[tf.constant(weights[n]) for n in names],
    )
    return str(prefix)


def google_weights(seed=0, with_optimizer_state=False):
    rng = np.random.default_rng(seed)
    weights = {n: rng.normal(0, 0.4, s).astype("float32") for n, s in google_variable_shapes().items()}
    if with_optimizer_state:  # What run_pretraining.py checkpoints also hold.
        for name in list(weights):
            weights[f"{name}/adam_m"] = np.zeros_like(weights[name])
            weights[f"{name}/adam_v"] = np.zeros_like(weights[name])
        weights["global_step"] = np.array(1000, "int64")
    return weights


class Tf1CheckpointTest(TestCase):
    def test_original_checkpoint_matches_numpy_reference(self):
        tmp = self.tmp()
        weights = google_weights(with_optimizer_state=True)
        prefix = write_checkpoint(f"{tmp}/bert_model.ckpt", weights)
        pretrainer = BertPretrainer(BertEncoder(**TINY))
        report = load_tf1_checkpoint(pretrainer, prefix)
        self.assertEqual(len(report.loaded), len(google_variable_shapes()))
        self.assertEqual(len(report.ignored_training_state), 2 * len(google_variable_shapes()) + 1)

        inputs = tiny_inputs(seed=3)
        positions = np.array([[0, 2, 6], [1, 3, 4], [0, 1, 1]], "int32")
        outputs = pretrainer.predict({**inputs, "mask_positions": positions}, verbose=0)
        config = {**TINY, "hidden_act": "gelu"}
        sequence, pooled, _ = numpy_bert.encoder(weights, config, **inputs)
        mlm, nsp = numpy_bert.pretraining_heads(weights, config, sequence, pooled, positions)
        self.assertAllClose(outputs["mlm_logits"], mlm, atol=1e-4)
        self.assertAllClose(outputs["nsp_logits"], nsp, atol=1e-5)
        encoder_outputs = pretrainer.encoder.predict(inputs, verbose=0)
        self.assertAllClose(encoder_outputs["sequence_output"], sequence, atol=1e-5)

    def test_encoder_from_checkpoint_and_config_file(self):
        tmp = self.tmp()
        weights = google_weights()
        prefix = write_checkpoint(f"{tmp}/bert_model.ckpt", weights)
        BertConfig(**TINY).to_json_file(f"{tmp}/bert_config.json")
        # The encoder alone: the pretraining heads in the file are reported, not an error.
        encoder = encoder_from_tf1_checkpoint(tmp, f"{tmp}/bert_config.json")
        report = load_tf1_checkpoint(encoder, prefix + ".index")
        self.assertIn("cls/seq_relationship/output_weights", report.unused_head_weights)
        self.assertEqual(encoder.num_hidden_layers, 2)
        # The file's weights, not a fresh init: the NumPy BERT on the same tensors agrees.
        inputs = tiny_inputs(seed=5)
        sequence, pooled, _ = numpy_bert.encoder(weights, {**TINY, "hidden_act": "gelu"}, **inputs)
        outputs = encoder.predict(inputs, verbose=0)
        self.assertAllClose(outputs["sequence_output"], sequence, atol=1e-5)
        self.assertAllClose(outputs["pooled_output"], pooled, atol=1e-5)

    def test_save_then_load_round_trips_every_tensor(self):
        tmp = self.tmp()
        source = BertQuestionAnswerer(BertEncoder(**TINY))
        for w in source.weights:
            w.assign(np.random.default_rng(1).normal(size=w.shape).astype("float32"))
        prefix = save_tf1_checkpoint(source, f"{tmp}/model.ckpt")
        names = dict(tf.train.list_variables(prefix))
        self.assertEqual(names["cls/squad/output_weights"], [2, H])
        self.assertEqual(names["bert/encoder/layer_1/intermediate/dense/kernel"], [H, I])
        self.assertEqual(BertConfig.from_json_file(f"{tmp}/bert_config.json"), source.encoder.bert_config)
        target = BertQuestionAnswerer(BertEncoder(**TINY))
        load_tf1_checkpoint(target, prefix)
        for a, b in zip(source.weights, target.weights):
            np.testing.assert_array_equal(a.numpy(), b.numpy())

    def test_missing_extra_and_resized_tensors_are_named(self):
        tmp = self.tmp()
        weights = google_weights()
        missing = dict(weights)
        del missing["bert/encoder/layer_1/output/dense/bias"]
        with pytest.raises(ValueError, match=r"missing from the checkpoint, e.g. \['bert/encoder/layer_1/output/dense/bias'\]"):
            load_tf1_checkpoint(BertEncoder(**TINY), write_checkpoint(f"{tmp}/a.ckpt", missing))
        extra = {**weights, "bert/encoder/layer_1/extra_adapter/kernel": np.zeros((2, 2), "float32")}
        with pytest.raises(ValueError, match=r"no place in the model, e.g. \['bert/encoder/layer_1/extra_adapter/kernel'\]"):
            load_tf1_checkpoint(BertEncoder(**TINY), write_checkpoint(f"{tmp}/b.ckpt", extra))
        with pytest.raises(ValueError, match=r"intermediate/dense/kernel: checkpoint \(8, 12\) vs model \(8, 20\)"):
            load_tf1_checkpoint(
                BertEncoder(**{**TINY, "intermediate_size": 20}), write_checkpoint(f"{tmp}/c.ckpt", weights)
            )

    def test_not_a_bert_checkpoint_and_no_checkpoint_are_clear(self):
        tmp = self.tmp()
        prefix = write_checkpoint(f"{tmp}/other.ckpt", {"dense/kernel": np.zeros((2, 2), "float32")})
        with pytest.raises(ValueError, match="not a google-research BERT one"):
            load_tf1_checkpoint(BertEncoder(**TINY), prefix)
        with pytest.raises(FileNotFoundError, match="does not exist"):
            load_tf1_checkpoint(BertEncoder(**TINY), f"{tmp}/nothing.ckpt")

    def tmp(self):
        import tempfile

        return tempfile.mkdtemp()
