"""Length-grouped training batches without TensorFlow: the batch order, and a `PyDataset` that
serves the batches, cut to their longest row, to `fit` on any Keras backend."""

import math

import keras
import numpy as np

from keras_bert.api_export import keras_bert_export


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
            "lower the batch size (`train_batch_size`) or add data."
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


def trimmed_length(padding_mask, pad_to_multiple_of=1):
    """The longest row of a padded batch `[batch, width]`, rounded up to a multiple of
    `pad_to_multiple_of` and at most `width`: where a batch can be cut without changing any
    output at a real position."""
    if pad_to_multiple_of < 1:
        raise ValueError(f"pad_to_multiple_of={pad_to_multiple_of}; it must be >= 1.")
    padding_mask = np.asarray(padding_mask)
    longest = int(padding_mask.sum(axis=1).max())
    return min(padding_mask.shape[1], -(-longest // pad_to_multiple_of) * pad_to_multiple_of)


@keras_bert_export("keras_bert.data.LengthGroupedBatches")
class LengthGroupedBatches(keras.utils.PyDataset):
    """`num_batches` length-grouped, trimmed training batches for `fit`, from numpy arrays.

    The same batches, in the same order, as `length_grouped_dataset` (its tf.data counterpart):
    each epoch is a seeded permutation cut into chunks sorted by length, so a batch holds rows
    of similar length and is cut to its longest row (`trimmed_length`). Works on every Keras
    backend, with no TensorFlow.

    Args:
        inputs: dict of int arrays `[num_examples, max_seq_length]` (`token_ids`,
            `segment_ids`, `padding_mask`).
        targets: tuple of arrays or nests of arrays (labels, a dict of labels, sample weights),
            indexed by example; per-token ones (`[num_examples, max_seq_length]`) are trimmed
            like the inputs. `fit` reads `(x, y)` or `(x, y, sample_weight)`.
        batch_size, num_batches, seed: see `length_grouped_batches`.
        pad_to_multiple_of: int, round each batch's length up to a multiple of this (bounds
            the shapes a compiled step sees).
        start: int, batches to skip: a run resumed after `start` steps continues exactly
            where it stopped.
        **kwargs: `keras.utils.PyDataset` arguments (`workers`, `use_multiprocessing`).

    Example:
    >>> mask = np.array([[1, 1, 1, 0], [1, 1, 1, 1], [1, 1, 0, 0], [1, 1, 1, 1]])
    >>> x = {"token_ids": mask * np.array([[2, 5, 3, 0], [2, 6, 7, 3], [2, 3, 0, 0], [2, 8, 9, 3]]),
    ...      "segment_ids": 0 * mask, "padding_mask": mask}
    >>> batches = keras_bert.data.LengthGroupedBatches(
    ...     x, (np.array([0, 1, 0, 1]),), batch_size=2, num_batches=2)
    >>> inputs, labels = batches[1]  # the two shorter rows, cut to the longer of them
    >>> inputs["token_ids"].tolist(), labels.tolist()
    ([[2, 3, 0], [2, 5, 3]], [0, 0])
    >>> # model.fit(batches) trains on them, on any Keras backend.
    """

    def __init__(self, inputs, targets, batch_size, num_batches, seed=0, pad_to_multiple_of=1,
                 start=0, **kwargs):
        super().__init__(**kwargs)
        self.inputs = {name: np.asarray(value) for name, value in inputs.items()}
        self.targets = keras.tree.map_structure(np.asarray, tuple(targets))
        lengths = self.inputs["padding_mask"].sum(axis=1)
        self.batches = length_grouped_batches(lengths, batch_size, num_batches, seed)[start:]
        self.pad_to_multiple_of = pad_to_multiple_of
        self.width = self.inputs["padding_mask"].shape[1]

    def __len__(self):
        return len(self.batches)

    def from_step(self, start):
        """The batches after the first `start`: where a run resumed at step `start` goes on."""
        resumed = object.__new__(type(self))
        resumed.__dict__.update(self.__dict__)
        resumed.batches = self.batches[start:]
        return resumed

    def __getitem__(self, index):
        rows = self.batches[index]
        length = trimmed_length(self.inputs["padding_mask"][rows], self.pad_to_multiple_of)

        def take(value):  # a per-token array is cut like the inputs
            value = value[rows]
            return value[:, :length] if value.ndim >= 2 and value.shape[1] == self.width else value

        inputs = {name: take(value) for name, value in self.inputs.items()}
        return (inputs, *keras.tree.map_structure(take, self.targets))
