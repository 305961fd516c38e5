"""`length_grouped_dataset` (tf.data): trimmed batches, and the same batches as the TF-free
`LengthGroupedBatches`."""

import numpy as np
from keras import tree

from keras_bert.data.tf_length_grouping import length_grouped_dataset
from keras_bert.data.length_grouping import LengthGroupedBatches


def test_dataset_batches_are_trimmed_and_targets_follow_their_rows():
    lengths = np.array([2, 6, 3, 5, 4, 6])
    mask = (np.arange(6)[None] < lengths[:, None]).astype("int32")
    inputs = {"token_ids": mask * np.arange(1, 7)[:, None], "segment_ids": 0 * mask,
              "padding_mask": mask}
    labels = {"start": np.arange(6), "per_token": mask * 7}
    dataset = length_grouped_dataset(inputs, (labels,), batch_size=2, num_batches=6, seed=0)
    seen = []
    for x, y in dataset:
        rows = x["token_ids"][:, 0].numpy() - 1  # row i holds the value i + 1
        assert x["token_ids"].shape[1] == lengths[rows].max()
        np.testing.assert_array_equal(y["start"], rows)
        assert y["per_token"].shape == x["token_ids"].shape
        seen.extend(rows.tolist())
    assert sorted(seen) == sorted(list(range(6)) * 2)


def test_the_tf_data_and_the_numpy_batches_are_the_same():
    rng = np.random.default_rng(3)
    lengths = rng.integers(3, 33, 64)
    mask = (np.arange(32)[None] < lengths[:, None]).astype("int32")
    inputs = {"token_ids": mask * rng.integers(1, 99, (64, 32)), "segment_ids": 0 * mask,
              "padding_mask": mask}
    targets = ({"label": np.arange(64), "tags": mask * 5}, mask.astype("float32"))
    dataset = length_grouped_dataset(inputs, targets, batch_size=8, num_batches=20, seed=7,
                                     pad_to_multiple_of=4)
    batches = LengthGroupedBatches(inputs, targets, batch_size=8, num_batches=20, seed=7,
                                   pad_to_multiple_of=4)
    assert len(batches) == 20
    for index, tf_batch in enumerate(dataset):
        np_batch = batches[index]
        for ours, theirs in zip(tree.flatten(np_batch), tree.flatten(tf_batch)):
            np.testing.assert_array_equal(ours, theirs.numpy())
