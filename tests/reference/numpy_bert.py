"""A NumPy forward pass of BERT from TF1-named weights: the oracle for the Keras layers.

Written from the paper and google-research/bert's modeling.py, independently of keras_bert's
layers; it reads weights by their original TF1 names (`keras_bert.checkpoints.collect_weights`).
"""

import math

import numpy as np


def gelu(x):
    # Exact GELU, x * Phi(x), with Phi from math.erf (vectorized).
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


ACTIVATIONS = {"gelu": gelu, "gelu_new": gelu_tanh, "relu": lambda x: np.maximum(x, 0.0)}


def layer_norm(x, gamma, beta, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def softmax(x):
    x = x - x.max(-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(-1, keepdims=True)


def dense(w, scope, x):
    return x @ w[f"{scope}/kernel"] + w[f"{scope}/bias"]


def attention(w, scope, x, padding_mask, heads, attention_mask=None):
    """Multi-head self-attention context [B,S,H] from `{scope}/{query,key,value}` weights;
    `attention_mask` [B,S,S] (1 where query i may attend key j) further limits the keys."""
    batch, seq, hidden = x.shape
    size = hidden // heads

    def split(t):
        return t.reshape(batch, seq, heads, size).transpose(0, 2, 1, 3)

    q = split(dense(w, f"{scope}/query", x))
    k = split(dense(w, f"{scope}/key", x))
    v = split(dense(w, f"{scope}/value", x))
    keep = padding_mask[:, None, None, :].astype(x.dtype)
    if attention_mask is not None:
        keep = keep * attention_mask[:, None, :, :].astype(x.dtype)
    additive = (1.0 - keep) * -10000.0
    probs = softmax(q @ k.transpose(0, 1, 3, 2) / math.sqrt(size) + additive)
    return (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, hidden)


def transformer_block(w, prefix, x, padding_mask, heads, hidden_act):
    """One post-LN block with the weights under `prefix` (e.g. "bert/encoder/layer_0")."""
    context = attention(w, f"{prefix}/attention/self", x, padding_mask, heads)
    x = layer_norm(
        x + dense(w, f"{prefix}/attention/output/dense", context),
        w[f"{prefix}/attention/output/LayerNorm/gamma"],
        w[f"{prefix}/attention/output/LayerNorm/beta"],
    )
    act = ACTIVATIONS[hidden_act]
    ffn = dense(w, f"{prefix}/output/dense", act(dense(w, f"{prefix}/intermediate/dense", x)))
    return layer_norm(
        x + ffn, w[f"{prefix}/output/LayerNorm/gamma"], w[f"{prefix}/output/LayerNorm/beta"]
    )


def as_float64(w):
    return {k: np.asarray(v, np.float64) for k, v in w.items()}


def encoder(w, config, token_ids, segment_ids, padding_mask):
    """Returns (sequence_output [B,S,H], pooled_output [B,H], per-layer outputs), in float64."""
    w = as_float64(w)
    seq = token_ids.shape[1]
    x = (
        w["bert/embeddings/word_embeddings"][token_ids]
        + w["bert/embeddings/token_type_embeddings"][segment_ids]
        + w["bert/embeddings/position_embeddings"][:seq][None]
    )
    x = layer_norm(x, w["bert/embeddings/LayerNorm/gamma"], w["bert/embeddings/LayerNorm/beta"])
    layers = []
    for i in range(config["num_hidden_layers"]):
        x = transformer_block(
            w,
            f"bert/encoder/layer_{i}",
            x,
            padding_mask,
            config["num_attention_heads"],
            config["hidden_act"],
        )
        layers.append(x)
    pooled = np.tanh(dense(w, "bert/pooler/dense", x[:, 0]))
    return x, pooled, layers


def pretraining_heads(w, config, sequence_output, pooled_output, mask_positions):
    """Masked-LM logits at `mask_positions` [B,P,V] and next-sentence logits [B,2]."""
    w = as_float64(w)
    act = ACTIVATIONS[config["hidden_act"]]
    gathered = np.take_along_axis(sequence_output, mask_positions[:, :, None], axis=1)
    h = act(dense(w, "cls/predictions/transform/dense", gathered))
    h = layer_norm(
        h,
        w["cls/predictions/transform/LayerNorm/gamma"],
        w["cls/predictions/transform/LayerNorm/beta"],
    )
    mlm = h @ w["bert/embeddings/word_embeddings"].T + w["cls/predictions/output_bias"]
    nsp = (
        pooled_output @ w["cls/seq_relationship/output_weights"].T
        + w["cls/seq_relationship/output_bias"]
    )
    return mlm, nsp
