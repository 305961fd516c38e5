"""`SelfAttention`: BERT's multi-head scaled dot-product self-attention with padding/attention masks."""

import math

import keras
from keras import ops

from keras_bert.api_export import keras_bert_export
from keras_bert.api_export import renamed_config_keys
from keras_bert.layers.dropout import Dropout
from keras_bert.layers.float32_softmax import float32_softmax
from keras_bert.layers.forward_ops import FLOAT_OPS

# Added to the attention scores of padded key positions. google-research/bert uses -10000: after
# softmax it is exactly 0 in float32, it fits float16, and unlike the dtype's minimum it cannot
# overflow when added to a score.
MASK_ADDEND = -10000.0


@keras_bert_export("keras_bert.layers.SelfAttention")
class SelfAttention(keras.layers.Layer):
    """Multi-head self-attention as in google-research/bert's `attention_layer`.

    Query, key and value are `Dense` projections of width `hidden_size` (kernels `[H, H]`, the
    layout of the original checkpoints), split into `num_attention_heads` heads; scores are scaled
    by `1/sqrt(head_size)`, padded keys are masked, and the per-head contexts are concatenated.
    The output projection lives in `TransformerEncoder`, as in the original.

    Args:
        num_attention_heads: int. Number of heads; must divide the input width.
        attention_probs_dropout_prob: float. Dropout on the attention probabilities. Defaults
            to 0.1.
        initializer_range: float. Stddev of the truncated-normal initializer. Defaults to 0.02.

    Call arguments:
        x: float tensor `[batch, seq, hidden]`.
        padding_mask: bool or int tensor `[batch, seq]`, true/1 for real tokens. Optional.
        attention_mask: bool or int tensor `[batch, seq, seq]`, true/1 where query `i` may
            attend to key `j` (e.g. `keras_bert.layers.attention_mask(padding_mask, "causal")`).
            Optional; combined with `padding_mask` when both are given.
        training: bool, enables dropout.

    Returns:
        float tensor `[batch, seq, hidden]`: the concatenated contexts.

    Example:
    >>> layer = keras_bert.layers.SelfAttention(num_attention_heads=2)
    >>> tuple(layer(np.ones((3, 7, 8), "float32")).shape)
    (3, 7, 8)

    Reference:
        Vaswani et al. 2017, "Attention Is All You Need"; Devlin et al. 2018.
    """

    def __init__(
        self,
        num_attention_heads,
        attention_probs_dropout_prob=0.1,
        initializer_range=0.02,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.num_attention_heads = num_attention_heads
        self.attention_probs_dropout_prob = attention_probs_dropout_prob
        self.initializer_range = initializer_range

    def build(self, x_shape):
        hidden_size = x_shape[-1]
        if hidden_size % self.num_attention_heads:
            raise ValueError(
                f"Input width {hidden_size} is not a multiple of num_attention_heads="
                f"{self.num_attention_heads}."
            )
        self.head_size = hidden_size // self.num_attention_heads
        initializer = keras.initializers.TruncatedNormal(stddev=self.initializer_range)

        def dense(name):
            layer = keras.layers.Dense(
                hidden_size, kernel_initializer=initializer, dtype=self.dtype_policy, name=name
            )
            layer.build(x_shape)
            return layer

        self.query_dense = dense("query")
        self.key_dense = dense("key")
        self.value_dense = dense("value")
        self.dropout_layer = Dropout(
            self.attention_probs_dropout_prob, dtype=self.dtype_policy, name="dropout"
        )
        self.built = True

    def _split_heads(self, x):
        # [B, S, H] -> [B, N, S, D]
        batch, seq = ops.shape(x)[0], ops.shape(x)[1]
        x = ops.reshape(x, (batch, seq, self.num_attention_heads, self.head_size))  # [B, S, N, D]
        return ops.transpose(x, (0, 2, 1, 3))  # [B, N, S, D]

    # When to run the fused `keras.ops.dot_product_attention` (flash attention where the
    # backend and device offer it) instead of the explicit matmul-softmax-matmul: "auto" on JAX
    # and PyTorch whenever no attention dropout is applied (inference, feature extraction, or
    # training with `attention_probs_dropout_prob=0`: the fused op cannot drop probabilities).
    # On TensorFlow the explicit path stays: its oneDNN fusions and float32-internal softmax are
    # the measured fast path for bf16 on a CPU (docs/precision.md). True / False force a path.
    fused_attention = "auto"

    def _use_fused(self, training):
        if self.fused_attention != "auto":
            return bool(self.fused_attention)
        dropping = bool(training) and self.attention_probs_dropout_prob > 0
        return keras.config.backend() in ("jax", "torch") and not dropping

    def call(self, x, padding_mask=None, attention_mask=None, training=None):
        if self._use_fused(training):
            return self._fused_call(x, padding_mask, attention_mask)
        mask = {"padding_mask": padding_mask, "attention_mask": attention_mask}
        return self.call_with_ops(x, mask, training, FLOAT_OPS)

    def call_with_ops(self, x, mask, training, ops):
        """The explicit attention as steps of `ops` (see `keras_bert.layers.ForwardOps`)."""
        query = ops.dense(self.query_dense, x, training)  # [B, S, H]
        key = ops.dense(self.key_dense, x, training)  # [B, S, H]
        value = ops.dense(self.value_dense, x, training)  # [B, S, H]
        return ops.attend(self, query, key, value, mask, training)  # [B, S, H]

    def attend(self, query, key, value, padding_mask=None, attention_mask=None, training=None):
        """Scores, mask, softmax and the concatenated contexts from the `[B, S, H]` projections."""
        probs = self.attention_probs(query, key, padding_mask, attention_mask)  # [B, N, S, S]
        probs = ops.cast(probs, value.dtype)
        # Dropping whole attention targets, as the original does.
        probs = self.dropout_layer(probs, training=training)  # [B, N, S, S]
        return self.contexts(probs, value)  # [B, S, H]

    def attention_probs(self, query, key, padding_mask=None, attention_mask=None):
        """Each head's attention distribution over the keys `[B, N, S, S]` (the scores' dtype).

        `query` and `key` are the `[B, S, H]` projections; masked keys get probability ~0.
        """
        # Shape legend: B = batch, S = sequence (queries and keys), H = hidden size,
        # N = number of heads, D = head size (H / N).
        query = self._split_heads(query)  # [B, N, S, D]
        key = self._split_heads(key)  # [B, N, S, D]
        scores = ops.matmul(query, ops.transpose(key, (0, 1, 3, 2)))  # [B, N, S, S]
        scores = scores * ops.cast(1.0 / math.sqrt(self.head_size), scores.dtype)
        keep = None  # 1 where a query may attend a key, broadcast over heads
        if padding_mask is not None:
            keep = ops.cast(padding_mask, scores.dtype)[:, None, None, :]  # [B, 1, 1, S]
        if attention_mask is not None:
            allowed = ops.cast(attention_mask, scores.dtype)[:, None, :, :]  # [B, 1, S, S]
            keep = allowed if keep is None else keep * allowed
        if keep is not None:
            # Allowed keys add 0, the others MASK_ADDEND.
            scores = scores + (1.0 - keep) * ops.cast(MASK_ADDEND, scores.dtype)
        # Softmax in float32 even under mixed precision: float16 exponentials overflow.
        return float32_softmax(scores, axis=-1)  # [B, N, S, S]

    def contexts(self, probs, value):
        """The heads' contexts `probs @ value`, concatenated: `[B, N, S, S]` probs -> `[B, S, H]`."""
        value = self._split_heads(value)  # [B, N, S, D]
        context = ops.matmul(probs, value)  # [B, N, S, D]
        context = ops.transpose(context, (0, 2, 1, 3))  # [B, S, N, D]
        batch, seq = ops.shape(context)[0], ops.shape(context)[1]
        return ops.reshape(
            context, (batch, seq, self.num_attention_heads * self.head_size)
        )  # [B, S, H]

    def _fused_call(self, x, padding_mask, attention_mask):
        """The same attention through `keras.ops.dot_product_attention` (no dropout)."""
        batch, seq = ops.shape(x)[0], ops.shape(x)[1]
        heads = (batch, seq, self.num_attention_heads, self.head_size)
        query = ops.reshape(self.query_dense(x), heads)  # [B, S, N, D]
        key = ops.reshape(self.key_dense(x), heads)  # [B, S, N, D]
        value = ops.reshape(self.value_dense(x), heads)  # [B, S, N, D]
        mask = None  # true where a query may attend a key, broadcast over heads
        if padding_mask is not None:
            mask = ops.cast(padding_mask, "bool")[:, None, None, :]  # [B, 1, 1, S]
        if attention_mask is not None:
            allowed = ops.cast(attention_mask, "bool")[:, None, :, :]  # [B, 1, S, S]
            mask = allowed if mask is None else ops.logical_and(mask, allowed)
        context = ops.dot_product_attention(
            query, key, value, mask=mask, scale=1.0 / math.sqrt(self.head_size)
        )  # [B, S, N, D]
        return ops.reshape(context, (batch, seq, self.num_attention_heads * self.head_size))

    def compute_output_shape(self, x_shape, padding_mask_shape=None, attention_mask_shape=None):
        return tuple(x_shape)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "num_attention_heads": self.num_attention_heads,
                "attention_probs_dropout_prob": self.attention_probs_dropout_prob,
                "initializer_range": self.initializer_range,
            }
        )
        return config

    @classmethod
    def from_config(cls, config):
        # `.keras` files saved before the argument took its bert_config name hold `dropout`.
        renamed = renamed_config_keys(config, {"dropout": "attention_probs_dropout_prob"})
        return super().from_config(renamed)
