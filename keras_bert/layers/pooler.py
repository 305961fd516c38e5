"""`Pooler`: BERT's pooled output, a tanh dense layer on the first ([CLS]) position."""

import keras

from keras_bert.api_export import keras_bert_export


@keras_bert_export("keras_bert.layers.Pooler")
class Pooler(keras.layers.Layer):
    """Takes the hidden state of the first token ([CLS]) through `Dense(hidden, tanh)`.

    Args:
        initializer_range: float. Stddev of the truncated-normal initializer. Defaults to 0.02.

    Call arguments:
        sequence_output: float tensor `[batch, seq, hidden]`.

    Returns:
        float tensor `[batch, hidden]`.

    Example:
    >>> tuple(keras_bert.layers.Pooler()(np.ones((3, 7, 8), "float32")).shape)
    (3, 8)
    """

    def __init__(self, initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.initializer_range = initializer_range

    def build(self, sequence_output_shape):
        self.dense = keras.layers.Dense(
            sequence_output_shape[-1],
            activation="tanh",
            kernel_initializer=keras.initializers.TruncatedNormal(stddev=self.initializer_range),
            dtype=self.dtype_policy,
            name="dense",
        )
        self.dense.build((sequence_output_shape[0], sequence_output_shape[-1]))
        self.built = True

    def call(self, sequence_output):
        return self.dense(sequence_output[:, 0, :])  # [B, S, H] -> [B, H]

    def compute_output_shape(self, sequence_output_shape):
        return (sequence_output_shape[0], sequence_output_shape[-1])

    def get_config(self):
        config = super().get_config()
        config.update({"initializer_range": self.initializer_range})
        return config
