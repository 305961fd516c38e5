"""In-graph masked-LM masking for tf.data: a new mask every epoch (RoBERTa's dynamic masking)."""

import tensorflow as tf

from keras_bert.api_export import keras_bert_export
from keras_bert.data.pretraining.masking import MaskingPolicy
from keras_bert.data.pretraining.masking import replacement_token_ids


@keras_bert_export("keras_bert.data.DynamicMasker")
class DynamicMasker:
    """Re-masks batches of pretraining inputs with TensorFlow ops, inside a `tf.data` pipeline.

    Static masks (google-research/bert) are drawn once when records are created, so every
    epoch shows the model the same targets unless `dupe_factor` copies are stored. This
    masker first restores the original tokens of a batch (scattering `masked_lm_ids` back to
    `mask_positions`), then draws a fresh selection and 80/10/10 replacement with the same
    `MaskingPolicy` semantics as `TokenMasker`: never `[CLS]`/`[SEP]`/`[PAD]`, the count
    stochastically rounded from `n * masked_lm_prob`, at most `max_predictions_per_seq`.
    Randomness is stateless, keyed on `(seed, batch index)`, so a pipeline restarted at the same
    position draws the same masks. Whole-word and span masking are only available statically
    (`create_pretraining_data --do_whole_word_mask` / `--max_span_length`).

    Args:
        vocabulary: list of str tokens.
        policy: a `MaskingPolicy` (its `max_predictions_per_seq` must equal the records').
        seed: int. Defaults to 0.

    Call arguments:
        index: int64 scalar, the batch's position in the stream (from `Dataset.enumerate`).
        inputs, labels: the dicts `parse_pretraining_batch` returns.

    Returns:
        `(inputs, labels)` with new `token_ids`, `mask_positions`, `masked_lm_ids`,
        `masked_lm_weights`.
    """

    def __init__(self, vocabulary, policy=None, seed=0):
        self.policy = policy or MaskingPolicy()
        if self.policy.do_whole_word_mask or self.policy.max_span_length > 1:
            raise ValueError(
                "Whole-word and span masking are static only: create the records with "
                "`do_whole_word_mask` or `max_span_length` and train without dynamic masking."
            )
        index = {token: i for i, token in enumerate(vocabulary)}
        self.mask_token_id = index["[MASK]"]
        self.unmaskable_ids = tf.constant([index["[CLS]"], index["[SEP]"], index["[PAD]"]], tf.int32)
        self.replacement_ids = tf.constant(replacement_token_ids(vocabulary), tf.int32)
        self.seed = seed

    def __call__(self, index, inputs, labels):
        # Shape legend: B = batch, L = sequence length, P = max predictions.
        policy = self.policy
        seeds = tf.random.experimental.stateless_split(
            tf.stack([tf.cast(self.seed, tf.int64), tf.cast(index, tf.int64)]), num=4
        )
        tokens = restore_masked_tokens(inputs["token_ids"], inputs["mask_positions"], labels)  # [B, L]
        batch, length = tf.shape(tokens)[0], tf.shape(tokens)[1]
        num_predictions = policy.max_predictions_per_seq

        candidate = tf.logical_and(
            inputs["padding_mask"] > 0,
            tf.reduce_all(tokens[:, :, None] != self.unmaskable_ids, axis=-1),
        )  # [B, L]
        num_candidates = tf.reduce_sum(tf.cast(candidate, tf.float32), axis=1)  # [B]
        expected = num_candidates * policy.masked_lm_prob
        round_up = tf.random.stateless_uniform([batch], seeds[0]) < expected - tf.floor(expected)
        count = tf.floor(expected) + tf.cast(round_up, tf.float32)
        count = tf.minimum(tf.clip_by_value(count, 1.0, num_predictions), num_candidates)  # [B]

        # A random order of the candidates; the first `count` of it are selected.
        scores = tf.where(candidate, tf.random.stateless_uniform([batch, length], seeds[1]), -1.0)
        order = tf.math.top_k(scores, k=tf.minimum(num_predictions, length)).indices  # [B, P']
        valid = tf.range(tf.shape(order)[1])[None, :] < tf.cast(count, tf.int32)[:, None]
        # Sort selected positions ascending; unused slots (keyed past the end) go last.
        positions = tf.sort(tf.where(valid, order, length + order), axis=1)
        valid = positions < length
        positions = tf.where(valid, positions, 0)
        pad = num_predictions - tf.shape(positions)[1]
        positions = tf.pad(positions, [[0, 0], [0, pad]])  # [B, P]
        valid = tf.pad(valid, [[0, 0], [0, pad]])
        targets = tf.where(valid, tf.gather(tokens, positions, batch_dims=1), 0)  # [B, P]

        # 80% [MASK], 10% a random token, 10% unchanged (the rates of the policy).
        draw = tf.random.stateless_uniform([batch, num_predictions], seeds[2])
        random_ids = tf.gather(
            self.replacement_ids,
            tf.random.stateless_uniform(
                [batch, num_predictions], seeds[3], maxval=tf.size(self.replacement_ids), dtype=tf.int32
            ),
        )
        new_ids = tf.where(
            draw < policy.mask_token_rate,
            self.mask_token_id,
            tf.where(draw < policy.mask_token_rate + policy.random_token_rate, random_ids, targets),
        )
        update_at = tf.where(valid)  # [K, 2] = (row, slot)
        scatter_index = tf.stack(
            [tf.cast(update_at[:, 0], tf.int32), tf.gather_nd(positions, update_at)], axis=1
        )
        masked_tokens = tf.tensor_scatter_nd_update(
            tokens, scatter_index, tf.gather_nd(new_ids, update_at)
        )
        inputs = dict(inputs, token_ids=masked_tokens, mask_positions=positions)
        labels = dict(
            labels, masked_lm_ids=targets, masked_lm_weights=tf.cast(valid, tf.float32)
        )
        return inputs, labels


def restore_masked_tokens(token_ids, positions, labels):
    """The original tokens `[B, L]` of a masked batch: the stored targets written back at
    `positions` (`[B, P]`) where `labels["masked_lm_weights"]` is positive."""
    weights = labels["masked_lm_weights"]
    at = tf.where(weights > 0)  # [K, 2] = (row, slot)
    index = tf.stack([tf.cast(at[:, 0], tf.int32), tf.gather_nd(positions, at)], axis=1)
    return tf.tensor_scatter_nd_update(token_ids, index, tf.gather_nd(labels["masked_lm_ids"], at))
