"""`NextTokenTargets`: unmasked inputs, every position asked for the next real token."""

import numpy as np
import tensorflow as tf

from keras_bert.data.pretraining.next_token_targets import NextTokenTargets


def test_targets_are_the_next_tokens_of_the_unmasked_text():
    tokens = np.array([[2, 10, 11, 12, 3, 0], [2, 20, 21, 3, 22, 3]], "int32")
    padding = (tokens > 0).astype("int32")
    padding[1] = 1
    stored = tokens.copy()
    stored[0, 2] = 4  # stored masks: [MASK] at (0, 2) and a random token at (1, 4)
    stored[1, 4] = 13
    inputs = {"token_ids": tf.constant(stored), "segment_ids": tf.zeros_like(stored),
              "padding_mask": tf.constant(padding),
              "mask_positions": tf.constant([[2, 0], [4, 0]], tf.int32)}
    labels = {"masked_lm_ids": tf.constant([[11, 0], [22, 0]], tf.int32),
              "masked_lm_weights": tf.constant([[1.0, 0.0], [1.0, 0.0]]),
              "next_sentence_labels": tf.constant([0, 1], tf.int32)}
    out_inputs, out_labels = NextTokenTargets()(tf.constant(0, tf.int64), inputs, labels)
    np.testing.assert_array_equal(out_inputs["token_ids"], tokens)  # nothing hidden
    np.testing.assert_array_equal(out_inputs["mask_positions"], [[0, 1, 2, 3, 4]] * 2)
    np.testing.assert_array_equal(out_labels["masked_lm_ids"], tokens[:, 1:])
    # No target past the last real token.
    np.testing.assert_array_equal(out_labels["masked_lm_weights"], [[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]])
    np.testing.assert_array_equal(out_labels["next_sentence_labels"], [0, 1])
