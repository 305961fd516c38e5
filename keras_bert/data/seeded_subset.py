"""`seeded_subset`: which rows a `--max_train_examples` run trains on."""

import numpy as np


def seeded_subset(total, size, seed):
    """The sorted indices of a seeded random subset of `size` of `total` rows.

    The fine-tuning CLIs' `--max_train_examples` (with `--random_seed`) train on these rows, in
    file order; studies that must know them (a held-out split of the same labels) call it too.

    Args:
        total: int, the rows there are.
        size: int or None; `None`, 0 or at least `total` keeps every row.
        seed: int, the run's `--random_seed`.

    Returns:
        a sorted int64 array of row indices.
    """
    if not size or size >= total:
        return np.arange(total)
    return np.sort(np.random.default_rng(seed).permutation(total)[:size])
