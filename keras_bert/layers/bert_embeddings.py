"""`BertEmbeddings`: token + learned position + segment embeddings, LayerNorm, dropout."""

import keras
from keras import ops

from keras_bert.api_export import keras_bert_export
from keras_bert.api_export import renamed_config_keys
from keras_bert.layers.dropout import Dropout
from keras_bert.layers.forward_ops import FLOAT_OPS


def _checked_length(token_ids, max_position_embeddings):
    """The sequence length, checked at run time, for graphs traced with an unknown length (TF
    only). The check is a control dependency of the length the position slice reads, so it
    runs first: otherwise TensorFlow may run the slice first and fail with its own message."""
    import tensorflow as tf

    length = tf.shape(token_ids)[1]
    check = tf.debugging.assert_less_equal(
        length,
        max_position_embeddings,
        message=(
            f"Input sequence length exceeds max_position_embeddings={max_position_embeddings}. "
            "Truncate the inputs (e.g. the packer's sequence_length) or use a model with "
            "more position embeddings."
        ),
    )
    with tf.control_dependencies([check]):
        return tf.identity(length)


@keras_bert_export("keras_bert.layers.BertEmbeddings")
class BertEmbeddings(keras.layers.Layer):
    """The input embeddings of BERT.

    Sums a token embedding, a learned absolute position embedding (sliced to the input length)
    and a segment ("token type") embedding, then applies LayerNorm (epsilon 1e-12) and dropout,
    as google-research/bert's `embedding_lookup` + `embedding_postprocessor`.

    Args:
        vocab_size: int. Number of token ids.
        hidden_size: int. Embedding width.
        max_position_embeddings: int. Longest sequence the layer accepts.
        type_vocab_size: int. Number of segment ids.
        hidden_dropout_prob: float. Dropout rate after LayerNorm. Defaults to 0.1.
        initializer_range: float. Stddev of the truncated-normal initializer. Defaults to 0.02.

    Call arguments:
        token_ids: int tensor `[batch, seq]`.
        segment_ids: int tensor `[batch, seq]`.
        training: bool, enables dropout.

    Returns:
        float tensor `[batch, seq, hidden_size]`.

    Example:
    >>> layer = keras_bert.layers.BertEmbeddings(23, 8, 16, 2)
    >>> tuple(layer(np.ones((3, 7), "int32"), np.zeros((3, 7), "int32")).shape)
    (3, 7, 8)
    """

    def __init__(
        self,
        vocab_size,
        hidden_size,
        max_position_embeddings,
        type_vocab_size,
        hidden_dropout_prob=0.1,
        initializer_range=0.02,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.max_position_embeddings = max_position_embeddings
        self.type_vocab_size = type_vocab_size
        self.hidden_dropout_prob = hidden_dropout_prob
        self.initializer_range = initializer_range

        initializer = keras.initializers.TruncatedNormal(stddev=initializer_range)
        self.token_embedding = keras.layers.Embedding(
            vocab_size,
            hidden_size,
            embeddings_initializer=initializer,
            dtype=self.dtype_policy,
            name="token_embedding",
        )
        self.segment_embedding = keras.layers.Embedding(
            type_vocab_size,
            hidden_size,
            embeddings_initializer=initializer,
            dtype=self.dtype_policy,
            name="segment_embedding",
        )
        self.layer_norm = keras.layers.LayerNormalization(
            epsilon=1e-12, dtype=self.dtype_policy, name="layer_norm"
        )
        self.dropout_layer = Dropout(
            hidden_dropout_prob, dtype=self.dtype_policy, name="dropout"
        )

    def build(self, token_ids_shape, segment_ids_shape=None):
        self.token_embedding.build(token_ids_shape)
        self.segment_embedding.build(token_ids_shape)
        self.position_embeddings = self.add_weight(
            name="position_embeddings",
            shape=(self.max_position_embeddings, self.hidden_size),
            initializer=keras.initializers.TruncatedNormal(stddev=self.initializer_range),
        )
        self.layer_norm.build(tuple(token_ids_shape) + (self.hidden_size,))
        self.built = True

    def call(self, token_ids, segment_ids, training=None):
        return self.call_with_ops(token_ids, segment_ids, training, FLOAT_OPS)

    def call_with_ops(self, token_ids, segment_ids, training, ops):
        """The layer as steps of `ops` (see `keras_bert.layers.ForwardOps`)."""
        x = ops.embedding_sum(self, token_ids, segment_ids, training)  # [B, S, H]
        x = ops.normalize(self.layer_norm, x, training)
        return ops.dropout(self.dropout_layer, x, training)

    def embedding_sum(self, token_ids, segment_ids):
        """The summed token, segment and position embeddings `[B, S, H]`, before LayerNorm."""
        # B = batch, S = sequence length, H = hidden size.
        seq_length = token_ids.shape[1]
        if seq_length is not None and seq_length > self.max_position_embeddings:
            raise ValueError(
                f"Input sequence length {seq_length} exceeds max_position_embeddings="
                f"{self.max_position_embeddings}. Truncate the inputs (e.g. the packer's "
                "sequence_length) or use a model with more position embeddings."
            )
        length = ops.shape(token_ids)[1]
        if seq_length is None and keras.backend.backend() == "tensorflow":
            length = _checked_length(token_ids, self.max_position_embeddings)
        tokens = self.token_embedding(token_ids)  # [B, S, H]
        segments = self.segment_embedding(segment_ids)  # [B, S, H]
        positions = ops.slice(
            ops.convert_to_tensor(self.position_embeddings),
            (0, 0),
            (length, self.hidden_size),
        )  # [S, H]
        return tokens + segments + ops.cast(positions, tokens.dtype)[None]  # [B, S, H]

    def compute_output_shape(self, token_ids_shape, segment_ids_shape=None):
        return tuple(token_ids_shape) + (self.hidden_size,)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "vocab_size": self.vocab_size,
                "hidden_size": self.hidden_size,
                "max_position_embeddings": self.max_position_embeddings,
                "type_vocab_size": self.type_vocab_size,
                "hidden_dropout_prob": self.hidden_dropout_prob,
                "initializer_range": self.initializer_range,
            }
        )
        return config

    @classmethod
    def from_config(cls, config):
        # `.keras` files saved before the argument took its bert_config name hold `dropout`.
        renamed = renamed_config_keys(config, {"dropout": "hidden_dropout_prob"})
        return super().from_config(renamed)
