"""`SpanHead`: start and end logits over the sequence, for extractive question answering."""

import keras
from keras import ops

from keras_bert.api_export import keras_bert_export


@keras_bert_export("keras_bert.layers.SpanHead")
class SpanHead(keras.layers.Layer):
    """Scores every position as the start and as the end of the answer span.

    One `Dense(2)` over the sequence output, split into start and end logits, as
    google-research/bert's `run_squad.py` (`cls/squad/output_weights`).

    Args:
        initializer_range: float. Stddev of the truncated-normal initializer. Defaults to 0.02.

    Call arguments:
        sequence_output: float tensor `[batch, seq, hidden]`.

    Returns:
        a tuple `(start_logits, end_logits)` of float tensors `[batch, seq]`.

    Example:
    >>> start, end = keras_bert.layers.SpanHead()(np.ones((3, 7, 8), "float32"))
    >>> tuple(start.shape), tuple(end.shape)
    ((3, 7), (3, 7))
    """

    def __init__(self, initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.initializer_range = initializer_range
        self.dense = keras.layers.Dense(
            2,
            kernel_initializer=keras.initializers.TruncatedNormal(stddev=initializer_range),
            dtype=self.dtype_policy,
            name="dense",
        )

    def build(self, sequence_output_shape):
        self.dense.build(sequence_output_shape)
        self.built = True

    def call(self, sequence_output):
        logits = self.dense(sequence_output)  # [B, S, 2]
        return logits[..., 0], logits[..., 1]  # [B, S] each

    def compute_output_shape(self, sequence_output_shape):
        shape = tuple(sequence_output_shape[:-1])
        return shape, shape

    def get_config(self):
        config = super().get_config()
        config.update({"initializer_range": self.initializer_range})
        return config
