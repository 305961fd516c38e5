"""`ClassificationHead`: dropout + dense logits, for [CLS] classification, NSP and token labels."""

import keras

from keras_bert.api_export import keras_bert_export
from keras_bert.layers.dropout import Dropout


@keras_bert_export("keras_bert.layers.ClassificationHead")
class ClassificationHead(keras.layers.Layer):
    """Dropout followed by a linear layer to `num_classes` logits.

    One layer serves every "label from a hidden state" head in BERT, because the math is the same
    and only the input differs: sequence classification and next-sentence prediction apply it to
    the pooled output `[batch, hidden]`; token classification (NER) applies it to the sequence
    output `[batch, seq, hidden]`.

    Args:
        num_classes: int. Number of output logits.
        dropout: float. Dropout before the dense layer. Defaults to 0.1 (the fine-tuning recipe);
            the next-sentence head uses 0.
        initializer_range: float. Stddev of the truncated-normal initializer. Defaults to 0.02.

    Call arguments:
        x: float tensor `[..., hidden]`.
        training: bool, enables dropout.

    Returns:
        float tensor `[..., num_classes]` of logits.

    Example:
    >>> head = keras_bert.layers.ClassificationHead(num_classes=4)
    >>> tuple(head(np.ones((3, 8), "float32")).shape)
    (3, 4)
    """

    def __init__(self, num_classes, dropout=0.1, initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.num_classes = num_classes
        self.dropout = dropout
        self.initializer_range = initializer_range
        self.dropout_layer = Dropout(dropout, dtype=self.dtype_policy, name="dropout")
        self.dense = keras.layers.Dense(
            num_classes,
            kernel_initializer=keras.initializers.TruncatedNormal(stddev=initializer_range),
            dtype=self.dtype_policy,
            name="dense",
        )

    def build(self, x_shape):
        self.dense.build(x_shape)
        self.built = True

    def call(self, x, training=None):
        return self.dense(self.dropout_layer(x, training=training))

    def compute_output_shape(self, x_shape):
        return tuple(x_shape[:-1]) + (self.num_classes,)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "num_classes": self.num_classes,
                "dropout": self.dropout,
                "initializer_range": self.initializer_range,
            }
        )
        return config
