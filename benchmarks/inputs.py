"""Synthetic batches with the shapes and statistics of real ones (for fixed-shape suites)."""

import numpy as np


def pretraining_batch(vocab_size, batch_size, seq_length, predictions, seed=0):
    """`(inputs, labels)` of a full-length MLM + NSP batch, as `create_pretraining_data` writes:
    two segments, every position real, `predictions` distinct masked positions per row."""
    rng = np.random.default_rng(seed)
    shape = (batch_size, seq_length)
    segment_ids = np.zeros(shape, np.int32)
    segment_ids[:, seq_length // 2 :] = 1
    positions = np.stack(
        [np.sort(rng.choice(np.arange(1, seq_length - 1), predictions, replace=False))
         for _ in range(batch_size)]
    ).astype(np.int32)
    inputs = {
        "token_ids": rng.integers(1000 % vocab_size, vocab_size, shape).astype(np.int32),
        "segment_ids": segment_ids,
        "padding_mask": np.ones(shape, np.int32),
        "mask_positions": positions,
    }
    labels = {
        "masked_lm_ids": rng.integers(0, vocab_size, positions.shape).astype(np.int32),
        "masked_lm_weights": np.ones(positions.shape, np.float32),
        "next_sentence_labels": rng.integers(0, 2, (batch_size,)).astype(np.int32),
    }
    return inputs, labels
