"""Dynamic (per-batch, in-graph) masking: restores originals, re-masks with the policy's rates."""

import collections

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.data.pretraining.dynamic_masking import DynamicMasker
from keras_bert.data.pretraining.masking import MaskingPolicy

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unused0]"] + [f"w{i}" for i in range(94)]


def batch(seed=0, rows=64, length=40):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(8, length + 1, rows)
    tokens = rng.integers(6, 100, (rows, length))
    tokens[:, 0] = 2
    tokens[np.arange(rows), lengths - 1] = 3
    tokens[:, 10] = 3
    mask = (np.arange(length)[None] < lengths[:, None]).astype("int32")
    tokens = (tokens * mask).astype("int32")
    # Stored (static) masks: position 1 masked, its label the original token.
    stored = tokens.copy()
    stored[:, 1] = 4
    inputs = {"token_ids": tf.constant(stored), "segment_ids": tf.zeros_like(stored),
              "padding_mask": tf.constant(mask), "mask_positions": tf.constant(np.tile([[1, 0, 0, 0, 0, 0, 0, 0]], (rows, 1)), tf.int32)}
    labels = {"masked_lm_ids": tf.constant(np.pad(tokens[:, 1:2], [[0, 0], [0, 7]]), tf.int32),
              "masked_lm_weights": tf.constant(np.tile([[1.0] + [0.0] * 7], (rows, 1)), tf.float32),
              "next_sentence_labels": tf.zeros([rows], tf.int32)}
    return tokens, inputs, labels


def test_remasks_from_the_original_tokens_with_the_policy():
    masker = DynamicMasker(VOCAB, MaskingPolicy(max_predictions_per_seq=8), seed=3)
    counts = collections.Counter()
    for step in range(30):
        tokens, inputs, labels = batch(seed=step)
        out_inputs, out_labels = masker(tf.constant(step, tf.int64), inputs, labels)
        masked = out_inputs["token_ids"].numpy()
        positions = out_inputs["mask_positions"].numpy()
        weights = out_labels["masked_lm_weights"].numpy()
        targets = out_labels["masked_lm_ids"].numpy()
        mask = inputs["padding_mask"].numpy()
        for row in range(len(tokens)):
            chosen = positions[row][weights[row] > 0]
            assert list(chosen) == sorted(set(chosen))
            assert all(tokens[row, p] not in (0, 2, 3) for p in chosen)  # never special tokens
            np.testing.assert_array_equal(targets[row][weights[row] > 0], tokens[row, chosen])
            untouched = np.setdiff1d(np.arange(tokens.shape[1]), chosen)
            np.testing.assert_array_equal(masked[row, untouched], tokens[row, untouched])
            counts["candidates"] += int(np.sum((mask[row] > 0) & ~np.isin(tokens[row], [2, 3])))
            counts["selected"] += len(chosen)
            for p in chosen:
                counts["mask" if masked[row, p] == 4 else "same" if masked[row, p] == tokens[row, p] else "random"] += 1
                assert masked[row, p] not in (0, 1, 2, 3, 5)
    assert abs(counts["selected"] / counts["candidates"] - 0.15) < 0.01
    assert abs(counts["mask"] / counts["selected"] - 0.8) < 0.03
    assert abs(counts["random"] / counts["selected"] - 0.1) < 0.03


def test_masks_are_new_per_batch_index_and_reproducible():
    masker = DynamicMasker(VOCAB, MaskingPolicy(max_predictions_per_seq=8), seed=0)
    _, inputs, labels = batch()
    first = masker(tf.constant(0, tf.int64), inputs, labels)[0]["mask_positions"].numpy()
    again = masker(tf.constant(0, tf.int64), inputs, labels)[0]["mask_positions"].numpy()
    other = masker(tf.constant(1, tf.int64), inputs, labels)[0]["mask_positions"].numpy()
    np.testing.assert_array_equal(first, again)
    assert (first != other).any()


@pytest.mark.parametrize("mask_token_rate, random_token_rate", [(1.0, 0.0), (0.8, 0.0), (0.8, 0.2)])
def test_configured_splits(mask_token_rate, random_token_rate):
    policy = MaskingPolicy(0.3, max_predictions_per_seq=16, mask_token_rate=mask_token_rate,
                           random_token_rate=random_token_rate)
    masker = DynamicMasker(VOCAB, policy, seed=1)
    counts = collections.Counter()
    for step in range(40):
        tokens, inputs, labels = batch(seed=100 + step)
        out_inputs, out_labels = masker(tf.constant(step, tf.int64), inputs, labels)
        masked = out_inputs["token_ids"].numpy()
        positions = out_inputs["mask_positions"].numpy()
        weights = out_labels["masked_lm_weights"].numpy()
        mask = inputs["padding_mask"].numpy()
        for row in range(len(tokens)):
            chosen = positions[row][weights[row] > 0]
            counts["candidates"] += int(np.sum((mask[row] > 0) & ~np.isin(tokens[row], [2, 3])))
            counts["selected"] += len(chosen)
            for p in chosen:
                counts["mask" if masked[row, p] == 4 else "same" if masked[row, p] == tokens[row, p] else "random"] += 1
    assert counts["selected"] > 8_000
    assert abs(counts["selected"] / counts["candidates"] - 0.3) < 0.01
    same_rate = 1.0 - mask_token_rate - random_token_rate
    # A random replacement can draw the token itself (1 in 94 here); it then counts as "same".
    for kind, rate in (("mask", mask_token_rate), ("random", random_token_rate), ("same", same_rate)):
        assert abs(counts[kind] / counts["selected"] - rate) < 0.02, (kind, counts)
        if rate == 0.0:
            assert counts[kind] == 0, (kind, counts)


def test_span_masking_is_static_only():
    with pytest.raises(ValueError, match="static only"):
        DynamicMasker(VOCAB, MaskingPolicy(max_span_length=5))
