"""Training batches of similar length: shuffled, seeded, endless, and cut to their longest row."""

import math

import numpy as np
import tensorflow as tf

from keras_bert.api_export import keras_bert_export
from keras_bert.data.batch_trimming import trim_batch_padding


def length_grouped_batches(lengths, batch_size, num_batches, seed=0, batches_per_chunk=50):
    """Indices of `num_batches` training batches, `[num_batches, batch_size]`.

    Each epoch is a fresh permutation cut into chunks of `batches_per_chunk` batches; inside a
    chunk the examples are sorted by length and cut into batches, and the batches of the epoch
    are shuffled. So every batch holds rows of similar length (little padding to pay for),
    while each epoch still sees every example once in a random order of batches. Examples
    left over at the end of an epoch (fewer than `batch_size`) wait for the next epoch's
    permutation, as `drop_remainder` would drop them. Deterministic for a given `seed`.
    """
    lengths = np.asarray(lengths)
    if len(lengths) < batch_size:
        raise ValueError(
            f"{len(lengths)} training examples are fewer than one batch of {batch_size}; "
            "lower --train_batch_size or add data."
        )
    rng = np.random.default_rng(seed)
    per_epoch = len(lengths) // batch_size
    batches = []
    for _ in range(math.ceil(num_batches / per_epoch)):
        order = rng.permutation(len(lengths))[: per_epoch * batch_size]
        chunk = batches_per_chunk * batch_size
        epoch = []
        for start in range(0, len(order), chunk):
            part = order[start : start + chunk]
            part = part[np.argsort(lengths[part], kind="stable")]
            epoch.extend(part.reshape(-1, batch_size))
        batches.extend(epoch[i] for i in rng.permutation(len(epoch)))
    return np.stack(batches[:num_batches]).astype("int64")


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
