"""Cut each batch to its longest row: fine-tuning on short texts stops paying for padding."""

import tensorflow as tf

from keras_bert.api_export import keras_bert_export


@keras_bert_export("keras_bert.data.trim_batch_padding")
def trim_batch_padding(inputs, *targets, pad_to_multiple_of=1):
    """A `tf.data` map function: slices a padded batch to the longest row's length.

    `inputs` is the encoder's dict (`token_ids`, `segment_ids`, `padding_mask`, each
    `[batch, max_seq_length]`); `targets` (tensors or nests of them, e.g. a dict of labels) are
    passed on, and those of rank >= 2 (per-token labels or sample weights
    `[batch, max_seq_length]`) are sliced the same way. Padded
    positions never change the outputs at real positions, so this changes only the cost: a batch
    of SST-2 sentences padded to 128 is usually under 40 tokens long.

    `pad_to_multiple_of` rounds the length up (never past the padded width): with 32, a
    128-wide dataset has at most 4 batch shapes, so an XLA-compiled (`jit_compile`) step
    compiles 4 programs instead of one per distinct length.

    Example:
    >>> x = {"token_ids": tf.constant([[2, 7, 3, 0, 0]]), "segment_ids": tf.zeros((1, 5), "int32"),
    ...      "padding_mask": tf.constant([[1, 1, 1, 0, 0]])}
    >>> trimmed, label = keras_bert.data.trim_batch_padding(x, tf.constant([1]))
    >>> trimmed["token_ids"].numpy().tolist(), label.numpy().tolist()
    ([[2, 7, 3]], [1])
    """
    if pad_to_multiple_of < 1:
        raise ValueError(f"pad_to_multiple_of={pad_to_multiple_of}; it must be >= 1.")
    longest = tf.reduce_max(tf.reduce_sum(tf.cast(inputs["padding_mask"], tf.int32), axis=1))
    width = tf.shape(inputs["padding_mask"])[1]
    length = tf.minimum(width, -(-longest // pad_to_multiple_of) * pad_to_multiple_of)
    inputs = {name: value[:, :length] for name, value in inputs.items()}
    targets = tf.nest.map_structure(
        lambda t: t[:, :length] if t.shape.rank >= 2 else t, targets
    )
    return (inputs, *targets)
