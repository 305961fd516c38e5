"""`MeanPooling`: the average of the hidden states of real (unpadded) tokens."""

import keras
from keras import ops

from keras_bert.api_export import keras_bert_export


@keras_bert_export("keras_bert.layers.MeanPooling")
class MeanPooling(keras.layers.Layer):
    """Averages `sequence_output` over the positions where `padding_mask` is 1.

    The sentence embedding of sentence-transformers models such as all-MiniLM-L6-v2, and a
    common frozen-feature baseline. Padded positions contribute nothing, whatever they hold.

    Call arguments:
        sequence_output: float tensor `[batch, seq, hidden]`.
        padding_mask: bool or int tensor `[batch, seq]`, 1 for real tokens.

    Returns:
        float tensor `[batch, hidden]`.

    Example:
    >>> pooled = keras_bert.layers.MeanPooling()(
    ...     np.array([[[1.0], [3.0], [100.0]]], "float32"), np.array([[1, 1, 0]], "int32"))
    >>> pooled.numpy().tolist()
    [[2.0]]
    """

    def call(self, sequence_output, padding_mask):
        mask = ops.cast(padding_mask, sequence_output.dtype)[:, :, None]  # [B, S, 1]
        total = ops.sum(sequence_output * mask, axis=1)  # [B, H]
        # At least one token per row is counted, so an all-padding row gives 0, not NaN.
        count = ops.maximum(ops.sum(mask, axis=1), ops.cast(1.0, mask.dtype))  # [B, 1]
        return total / count

    def compute_output_shape(self, sequence_output_shape, padding_mask_shape=None):
        return (sequence_output_shape[0], sequence_output_shape[-1])
