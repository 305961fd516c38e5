"""`TransformerEncoder`: one post-LayerNorm BERT block (self-attention + feed-forward)."""

import keras

from keras_bert.api_export import keras_bert_export
from keras_bert.layers.dropout import Dropout
from keras_bert.layers.activations import get_activation
from keras_bert.layers.forward_ops import FLOAT_OPS
from keras_bert.layers.self_attention import SelfAttention


@keras_bert_export("keras_bert.layers.TransformerEncoder")
class TransformerEncoder(keras.layers.Layer):
    """One BERT Transformer block, with LayerNorm after each residual sum ("post-LN").

    `x = LN(x + Dropout(Dense(SelfAttention(x))))`, then
    `x = LN(x + Dropout(Dense(act(Dense(x)))))`, as google-research/bert's `transformer_model`.

    Args:
        num_attention_heads: int. Attention heads; must divide the input width.
        intermediate_size: int. Width of the feed-forward layer.
        hidden_act: str. Feed-forward activation name; `"gelu"` is the exact GELU.
            Defaults to `"gelu"`.
        hidden_dropout_prob: float. Dropout on both sublayer outputs. Defaults to 0.1.
        attention_probs_dropout_prob: float. Dropout on attention probabilities. Defaults to 0.1.
        initializer_range: float. Stddev of the truncated-normal initializer. Defaults to 0.02.

    Call arguments:
        x: float tensor `[batch, seq, hidden]`.
        padding_mask: bool or int tensor `[batch, seq]`, true/1 for real tokens. Optional.
        attention_mask: bool or int tensor `[batch, seq, seq]`, true/1 where query `i` may
            attend to key `j`. Optional (see `SelfAttention`).
        training: bool, enables dropout.

    Returns:
        float tensor `[batch, seq, hidden]`.

    Example:
    >>> layer = keras_bert.layers.TransformerEncoder(2, 12)
    >>> tuple(layer(np.ones((3, 7, 8), "float32")).shape)
    (3, 7, 8)
    """

    def __init__(
        self,
        num_attention_heads,
        intermediate_size,
        hidden_act="gelu",
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1,
        initializer_range=0.02,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.num_attention_heads = num_attention_heads
        self.intermediate_size = intermediate_size
        self.hidden_act = hidden_act
        self.hidden_dropout_prob = hidden_dropout_prob
        self.attention_probs_dropout_prob = attention_probs_dropout_prob
        self.initializer_range = initializer_range
        self.activation = get_activation(hidden_act)

    def build(self, x_shape):
        hidden_size = x_shape[-1]
        initializer = keras.initializers.TruncatedNormal(stddev=self.initializer_range)
        policy = self.dtype_policy
        intermediate_shape = tuple(x_shape[:-1]) + (self.intermediate_size,)

        self.attention = SelfAttention(
            self.num_attention_heads,
            attention_probs_dropout_prob=self.attention_probs_dropout_prob,
            initializer_range=self.initializer_range,
            dtype=policy,
            name="attention",
        )
        self.attention.build(x_shape)
        self.attention_output_dense = keras.layers.Dense(
            hidden_size, kernel_initializer=initializer, dtype=policy, name="attention_output"
        )
        self.attention_output_dense.build(x_shape)
        self.attention_layer_norm = keras.layers.LayerNormalization(
            epsilon=1e-12, dtype=policy, name="attention_layer_norm"
        )
        self.attention_layer_norm.build(x_shape)
        self.intermediate_dense = keras.layers.Dense(
            self.intermediate_size, kernel_initializer=initializer, dtype=policy, name="intermediate"
        )
        self.intermediate_dense.build(x_shape)
        self.output_dense = keras.layers.Dense(
            hidden_size, kernel_initializer=initializer, dtype=policy, name="output"
        )
        self.output_dense.build(intermediate_shape)
        self.output_layer_norm = keras.layers.LayerNormalization(
            epsilon=1e-12, dtype=policy, name="output_layer_norm"
        )
        self.output_layer_norm.build(x_shape)
        self.dropout_layer = Dropout(
            self.hidden_dropout_prob, dtype=policy, name="dropout"
        )
        self.built = True

    def call(self, x, padding_mask=None, attention_mask=None, training=None):
        mask = {"padding_mask": padding_mask, "attention_mask": attention_mask}
        return self.call_with_ops(x, mask, training, FLOAT_OPS)

    def call_with_ops(self, x, mask, training, ops):
        """The block as steps of `ops` (see `keras_bert.layers.ForwardOps`)."""
        # B = batch, S = sequence, H = hidden size, I = intermediate size.
        attended = ops.attention(self.attention, x, mask, training)  # [B, S, H]
        attended = ops.dense(self.attention_output_dense, attended, training)  # [B, S, H]
        attended = ops.dropout(self.dropout_layer, attended, training)
        x = ops.residual(x, attended, "attention", training)
        x = ops.normalize(self.attention_layer_norm, x, training)  # [B, S, H]

        hidden = ops.dense(self.intermediate_dense, x, training)  # [B, S, I]
        hidden = ops.activation(self.activation, hidden, training)
        hidden = ops.dense(self.output_dense, hidden, training)  # [B, S, H]
        hidden = ops.dropout(self.dropout_layer, hidden, training)
        x = ops.residual(x, hidden, "output", training)
        return ops.normalize(self.output_layer_norm, x, training)  # [B, S, H]

    def compute_output_shape(self, x_shape, padding_mask_shape=None, attention_mask_shape=None):
        return tuple(x_shape)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "num_attention_heads": self.num_attention_heads,
                "intermediate_size": self.intermediate_size,
                "hidden_act": self.hidden_act,
                "hidden_dropout_prob": self.hidden_dropout_prob,
                "attention_probs_dropout_prob": self.attention_probs_dropout_prob,
                "initializer_range": self.initializer_range,
            }
        )
        return config
