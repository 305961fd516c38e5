"""Next-token (language-model) targets for pretraining batches, in place of masked-LM ones."""

import tensorflow as tf

from keras_bert.api_export import keras_bert_export
from keras_bert.data.pretraining.dynamic_masking import restore_masked_tokens


@keras_bert_export("keras_bert.data.NextTokenTargets")
class NextTokenTargets:
    """Turns masked pretraining batches into a next-token objective over the same text.

    The stored masks are undone (the inputs are the original tokens, nothing is hidden), and
    every position `i` of a sequence is asked for the token at `i + 1`, through the masked-LM
    head: `mask_positions = 0..L-2`, `masked_lm_ids = tokens[1:]`, weight 1 where the target is
    a real token. With a causal encoder (`attention_pattern="causal"`) this is a left-to-right
    language model (GPT's objective); with `"hide_next"` it is the bidirectional language model
    whose targets leak through a second layer. The record format, data order and batches are
    those of the masked-LM runs, so objectives can be compared on identical text.

    Call arguments: as `DynamicMasker`: `(index, inputs, labels)`, `index` unused.

    Returns:
        `(inputs, labels)` with the original `token_ids`, `mask_positions` `[B, L-1]`,
        `masked_lm_ids` `[B, L-1]`, `masked_lm_weights` `[B, L-1]`.
    """

    def __call__(self, index, inputs, labels):
        del index  # the targets are a pure function of the text
        tokens = restore_masked_tokens(inputs["token_ids"], inputs["mask_positions"], labels)  # [B, L]
        batch, length = tf.shape(tokens)[0], tf.shape(tokens)[1]
        positions = tf.tile(tf.range(length - 1)[None, :], [batch, 1])  # [B, L-1]
        inputs = dict(inputs, token_ids=tokens, mask_positions=positions)
        labels = dict(
            labels,
            masked_lm_ids=tokens[:, 1:],  # [B, L-1]
            masked_lm_weights=tf.cast(inputs["padding_mask"][:, 1:], tf.float32),
        )
        return inputs, labels
