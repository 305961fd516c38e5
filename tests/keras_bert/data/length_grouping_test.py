"""Length-grouped batches without TensorFlow: every example once per epoch, little padding,
deterministic, trimmed, resumable."""

import numpy as np
import pytest

from keras_bert.data.length_grouping import LengthGroupedBatches
from keras_bert.data.length_grouping import length_grouped_batches
from keras_bert.data.length_grouping import trimmed_length

pytestmark = pytest.mark.backend_portable


def test_each_epoch_sees_every_example_once_in_batches_of_similar_length():
    rng = np.random.default_rng(0)
    lengths = rng.integers(5, 200, 1000)
    batches = length_grouped_batches(lengths, 10, num_batches=250, seed=1, batches_per_chunk=20)
    assert batches.shape == (250, 10)
    for epoch in (batches[:100], batches[100:200]):
        assert sorted(epoch.ravel().tolist()) == list(range(1000))
    spread = np.mean([np.ptp(lengths[b]) for b in batches])
    random_spread = np.mean([np.ptp(lengths[b]) for b in rng.permutation(1000).reshape(100, 10)])
    assert spread < random_spread / 5  # sorted chunks of 200: rows of a batch are close in length
    assert not np.array_equal(batches[:100], batches[100:200])  # epochs differ
    np.testing.assert_array_equal(batches, length_grouped_batches(lengths, 10, 250, 1, 20))


def test_fewer_examples_than_a_batch_is_an_error():
    with pytest.raises(ValueError, match="3 training examples are fewer than one batch of 4"):
        length_grouped_batches([1, 2, 3], 4, 1)


def test_trimmed_length_is_the_longest_row_rounded_up_and_never_wider():
    mask = np.array([[1, 1, 1, 0, 0, 0, 0], [1, 1, 1, 1, 1, 0, 0]])
    assert trimmed_length(mask) == 5
    assert trimmed_length(mask, pad_to_multiple_of=4) == 7  # 8 would be wider than the batch
    assert trimmed_length(mask, pad_to_multiple_of=3) == 6
    with pytest.raises(ValueError, match="pad_to_multiple_of=0"):
        trimmed_length(mask, 0)


def test_batches_are_trimmed_targets_follow_their_rows_and_start_resumes():
    lengths = np.array([2, 6, 3, 5, 4, 6])
    mask = (np.arange(6)[None] < lengths[:, None]).astype("int32")
    inputs = {"token_ids": mask * np.arange(1, 7)[:, None], "segment_ids": 0 * mask,
              "padding_mask": mask}
    labels = {"start": np.arange(6), "per_token": mask * 7}
    batches = LengthGroupedBatches(inputs, (labels,), batch_size=2, num_batches=6, seed=0)
    seen = []
    for index in range(len(batches)):
        x, y = batches[index]
        rows = x["token_ids"][:, 0] - 1  # row i holds the value i + 1
        assert x["token_ids"].shape[1] == lengths[rows].max()
        np.testing.assert_array_equal(y["start"], rows)
        assert y["per_token"].shape == x["token_ids"].shape
        seen.extend(rows.tolist())
    assert sorted(seen) == sorted(list(range(6)) * 2)
    resumed = LengthGroupedBatches(inputs, (labels,), batch_size=2, num_batches=6, seed=0, start=4)
    assert len(resumed) == 2
    np.testing.assert_array_equal(resumed[0][0]["token_ids"], batches[4][0]["token_ids"])
