"""`seeded_subset`: the rows a `--max_train_examples` run trains on."""

import numpy as np
import pytest

from keras_bert.data.seeded_subset import seeded_subset


@pytest.mark.parametrize("total, size, seed", [(100, 10, 0), (87599, 20000, 2), (7, 6, 5)])
def test_is_the_first_rows_of_a_seeded_permutation_in_file_order(total, size, seed):
    rows = seeded_subset(total, size, seed)
    expected = sorted(np.random.default_rng(seed).permutation(total)[:size].tolist())
    assert rows.tolist() == expected
    assert len(set(rows.tolist())) == size and rows.min() >= 0 and rows.max() < total


def test_seeds_draw_different_rows_and_one_seed_the_same_rows():
    assert seeded_subset(1000, 100, 1).tolist() == seeded_subset(1000, 100, 1).tolist()
    assert seeded_subset(1000, 100, 1).tolist() != seeded_subset(1000, 100, 2).tolist()


@pytest.mark.parametrize("size", [None, 0, 5, 9])
def test_no_size_or_too_large_a_size_keeps_every_row(size):
    assert seeded_subset(5, size, 3).tolist() == [0, 1, 2, 3, 4]
