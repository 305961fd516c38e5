"""Training batches of similar length as a `tf.data.Dataset`: shuffled, seeded, cut to their
longest row. The batch order is `length_grouping`'s, which `LengthGroupedBatches` serves without
TensorFlow."""

import numpy as np
import tensorflow as tf

from keras_bert.api_export import keras_bert_export
from keras_bert.data.batch_trimming import trim_batch_padding
from keras_bert.data.length_grouping import length_grouped_batches


@keras_bert_export("keras_bert.data.length_grouped_dataset")
def length_grouped_dataset(inputs, targets, batch_size, num_batches, seed=0, pad_to_multiple_of=1):
    """A `tf.data.Dataset` of `num_batches` length-grouped, trimmed training batches.

    Args:
        inputs: dict of int arrays `[num_examples, max_seq_length]` (`token_ids`,
            `segment_ids`, `padding_mask`).
        targets: tuple of arrays or nests of arrays (labels, a dict of labels, sample
            weights), indexed by example; per-token ones (`[num_examples, max_seq_length]`) are
            trimmed like inputs.
        batch_size, num_batches, seed: see `length_grouped_batches`.
        pad_to_multiple_of: int, round each batch's length up to a multiple of this (see
            `trim_batch_padding`; bounds the shapes an XLA-compiled step sees).

    Returns:
        A dataset of `(inputs, *targets)` batches, each `[batch_size, longest row]`. Skipping
        `n` elements resumes exactly where a run that trained `n` steps stopped.
    """
    lengths = np.asarray(inputs["padding_mask"]).sum(axis=1)
    batches = length_grouped_batches(lengths, batch_size, num_batches, seed)
    inputs = {name: tf.constant(value) for name, value in inputs.items()}
    targets = tf.nest.map_structure(tf.constant, tuple(targets))

    def gather(indices):
        take = lambda value: tf.gather(value, indices)  # noqa: E731
        return trim_batch_padding(
            tf.nest.map_structure(take, inputs), *tf.nest.map_structure(take, targets),
            pad_to_multiple_of=pad_to_multiple_of,
        )

    return tf.data.Dataset.from_tensor_slices(batches).map(gather).prefetch(tf.data.AUTOTUNE)
