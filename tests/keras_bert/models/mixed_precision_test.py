"""Mixed precision: bf16 forward passes against HF float32 on real weights; float32 where promised."""

import keras
import numpy as np
import pytest
import tensorflow as tf
import torch
import transformers

from keras_bert.checkpoints.hf_checkpoint import encoder_from_hf_checkpoint
from keras_bert.checkpoints.tf1_checkpoint import save_tf1_checkpoint
from keras_bert.models.bert_classifier import BertClassifier
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.bert_question_answerer import BertQuestionAnswerer
from keras_bert.models.bert_token_classifier import BertTokenClassifier
from tests.keras_bert.checkpoints.hf_checkpoint_test import MINILM, SENTENCES, hf_batch, our_inputs
from tests.test_case import TINY, tiny_inputs

# Measured 2026-11-25 on an AMD EPYC (Zen 4, avx512_bf16), 18 sentences of 1-60 tokens, against
# HF float32: relative RMS error of the last layer 1.1e-2, max |error| 0.045, pooled max
# |error| 0.0025, worst sentence-embedding cosine 0.99979 (float32: 1e-6 / 4e-6 / 2e-7 / 1.0).
# The bounds leave about 2x headroom for another CPU's summation order.
SEQUENCE_RELATIVE_RMS = 0.025
SEQUENCE_MAX_ABS = 0.1
POOLED_MAX_ABS = 0.006
MIN_EMBEDDING_COSINE = 0.9995


@pytest.fixture(scope="module")
def minilm_outputs():
    batch = hf_batch(SENTENCES)
    hf = transformers.BertModel.from_pretrained(str(MINILM)).eval()
    with torch.no_grad():
        reference = hf(**{k: torch.from_numpy(v) for k, v in batch.items()})
    encoder = encoder_from_hf_checkpoint(str(MINILM))
    mixed = BertEncoder.from_bert_config(encoder.bert_config, dtype="mixed_bfloat16")
    mixed.set_weights(encoder.get_weights())
    inputs = our_inputs(batch)
    # The graph path the tools run (oneDNN softmax for bf16), not eager.
    run = tf.function(lambda x: mixed(x, training=False))
    outputs = run({k: tf.constant(v) for k, v in inputs.items()})
    return inputs, reference, outputs


def test_bfloat16_forward_on_real_weights_is_within_tolerance_of_hf_float32(minilm_outputs):
    inputs, reference, outputs = minilm_outputs
    assert outputs["sequence_output"].dtype == tf.bfloat16
    mask = inputs["padding_mask"].astype(bool)
    ours = np.asarray(outputs["sequence_output"], "float32")
    expected = reference.last_hidden_state.numpy()
    error = (ours - expected)[mask]
    assert np.sqrt((error**2).mean() / (expected[mask] ** 2).mean()) < SEQUENCE_RELATIVE_RMS
    assert np.abs(error).max() < SEQUENCE_MAX_ABS
    pooled = np.asarray(outputs["pooled_output"], "float32")
    assert np.abs(pooled - reference.pooler_output.numpy()).max() < POOLED_MAX_ABS

    def mean_pool(x):
        return (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)

    a, b = mean_pool(ours), mean_pool(expected)
    cosine = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    assert cosine.min() > MIN_EMBEDDING_COSINE


@pytest.mark.parametrize("task", ["classifier", "question_answerer", "token_classifier", "pretrainer"])
def test_mixed_policy_keeps_weights_logits_and_checkpoints_float32(task, tmp_path):
    encoder = BertEncoder(**TINY, dtype="mixed_bfloat16")
    model = {
        "classifier": lambda: BertClassifier(encoder, num_classes=3),
        "question_answerer": lambda: BertQuestionAnswerer(encoder),
        "token_classifier": lambda: BertTokenClassifier(encoder, num_classes=3),
        "pretrainer": lambda: BertPretrainer(encoder),
    }[task]()
    inputs = tiny_inputs()
    if task == "pretrainer":
        inputs["mask_positions"] = np.array([[1, 2], [0, 3], [1, 1]], "int32")
    outputs = model(inputs)
    assert {keras.backend.standardize_dtype(v.dtype) for v in model.weights} == {"float32"}
    logits = outputs.values() if isinstance(outputs, dict) else [outputs]
    assert {keras.backend.standardize_dtype(x.dtype) for x in logits} == {"float32"}
    # The encoder itself computes in bf16: only the heads and the losses read float32.
    hidden = encoder(tiny_inputs())["sequence_output"]
    assert keras.backend.standardize_dtype(hidden.dtype) == "bfloat16"
    prefix = save_tf1_checkpoint(model, str(tmp_path / "bert_model.ckpt"))
    dtypes = {tf.train.load_checkpoint(prefix).get_variable_to_dtype_map()[name]
              for name, _ in tf.train.list_variables(prefix)}
    assert dtypes == {tf.float32}


def test_mixed_bfloat16_fine_tuning_fits_a_tiny_task():
    # 16 sequences, labels a function of the first token: float32 logits, float32 losses, and
    # bf16 matmuls must still drive the loss down.
    keras.utils.set_random_seed(0)
    encoder = BertEncoder(**TINY, dtype="mixed_bfloat16")
    model = BertClassifier(encoder, num_classes=2, dropout=0.0)
    inputs = tiny_inputs(batch=16, lengths=[7] * 16)
    labels = (inputs["token_ids"][:, 0] % 2).astype("int32")
    model.compile(optimizer=keras.optimizers.Adam(3e-3), jit_compile=False,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(inputs, labels, epochs=60, batch_size=16, verbose=0).history["loss"]
    assert history[-1] < 0.25 * history[0]
