"""`MaskedLMHead`: BERT's masked-LM output, computed only at the masked positions."""

import keras
from keras import ops

from keras_bert.api_export import keras_bert_export
from keras_bert.layers.activations import get_activation


@keras_bert_export("keras_bert.layers.MaskedLMHead")
class MaskedLMHead(keras.layers.Layer):
    """Predicts the original token at each masked position.

    Gathers the hidden states at `mask_positions`, applies `Dense(hidden) -> act -> LayerNorm`
    (the "transform"), and projects onto the vocabulary with the *transposed token embedding
    matrix* (weights tied to the input embedding) plus a per-token output bias, as
    google-research/bert's `get_masked_lm_output`. Only the `P` masked positions are projected,
    never all `S`: the vocabulary projection is the largest matmul in pretraining.

    Args:
        token_embedding: the `keras.layers.Embedding` whose matrix is reused for the output
            projection (the encoder's `token_embedding`).
        hidden_act: str. Activation of the transform. Defaults to `"gelu"` (exact).
        initializer_range: float. Stddev of the truncated-normal initializer. Defaults to 0.02.

    Call arguments:
        sequence_output: float tensor `[batch, seq, hidden]`.
        mask_positions: int tensor `[batch, predictions]`, indices into `seq`.

    Returns:
        float tensor `[batch, predictions, vocab_size]` of logits, in the weights' dtype
        (float32 under a mixed policy such as `"mixed_bfloat16"`).

    Example:
    >>> embedding = keras.layers.Embedding(23, 8)
    >>> head = keras_bert.layers.MaskedLMHead(embedding)
    >>> tuple(head(np.ones((3, 7, 8), "float32"), np.zeros((3, 5), "int32")).shape)
    (3, 5, 23)
    """

    def __init__(self, token_embedding, hidden_act="gelu", initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.token_embedding = token_embedding
        self.hidden_act = hidden_act
        self.initializer_range = initializer_range
        self.activation = get_activation(hidden_act)

    def build(self, sequence_output_shape, mask_positions_shape=None):
        hidden_size = sequence_output_shape[-1]
        vocab_size = self.token_embedding.input_dim
        if self.token_embedding.output_dim != hidden_size:
            raise ValueError(
                f"The tied token embedding has width {self.token_embedding.output_dim} but the "
                f"sequence output has width {hidden_size}; they must match."
            )
        if not self.token_embedding.built:
            self.token_embedding.build((None,))
        self.dense = keras.layers.Dense(
            hidden_size,
            kernel_initializer=keras.initializers.TruncatedNormal(stddev=self.initializer_range),
            dtype=self.dtype_policy,
            name="dense",
        )
        self.dense.build((None, None, hidden_size))
        self.layer_norm = keras.layers.LayerNormalization(
            epsilon=1e-12, dtype=self.dtype_policy, name="layer_norm"
        )
        self.layer_norm.build((None, None, hidden_size))
        self.output_bias = self.add_weight(
            name="output_bias", shape=(vocab_size,), initializer="zeros"
        )
        self.built = True

    def call(self, sequence_output, mask_positions):
        # B = batch, S = sequence, P = masked positions, H = hidden size, V = vocab size.
        positions = ops.cast(mask_positions, "int32")[:, :, None]  # [B, P, 1]
        x = ops.take_along_axis(sequence_output, positions, axis=1)  # [B, P, H]
        x = self.layer_norm(self.activation(self.dense(x)))  # [B, P, H]
        embeddings = ops.cast(self.token_embedding.embeddings, x.dtype)  # [V, H]
        # The vocabulary projection is this head's one big matmul: it runs in the compute dtype
        # (bf16 under mixed precision); the logits the loss reads are in the weights' dtype
        # (float32 under mixed precision).
        logits = ops.matmul(x, ops.transpose(embeddings))  # [B, P, V]
        logits = ops.cast(logits, self.variable_dtype)
        return logits + ops.cast(self.output_bias, logits.dtype)

    def compute_output_shape(self, sequence_output_shape, mask_positions_shape):
        return tuple(mask_positions_shape) + (self.token_embedding.input_dim,)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "token_embedding": keras.layers.serialize(self.token_embedding),
                "hidden_act": self.hidden_act,
                "initializer_range": self.initializer_range,
            }
        )
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["token_embedding"] = keras.layers.deserialize(config["token_embedding"])
        return cls(**config)
