"""Masked-LM + next-sentence loss as sums, so replicas and accumulation steps combine exactly."""

import collections

import tensorflow as tf

# Per-batch sums; ratios of sums over the global batch give the loss and the accuracies.
PretrainingSums = collections.namedtuple(
    "PretrainingSums",
    ["mlm_loss", "mlm_weight", "mlm_correct", "nsp_loss", "nsp_count", "nsp_correct", "tokens"],
)


def pretraining_sums(outputs, labels, padding_mask):
    """Weighted masked-LM cross-entropy and NSP cross-entropy, summed over a batch.

    Args:
        outputs: `BertPretrainer` outputs, `mlm_logits` `[B, P, V]` and `nsp_logits` `[B, 2]`.
        labels: `masked_lm_ids` `[B, P]`, `masked_lm_weights` `[B, P]` (0 on padded prediction
            slots), `next_sentence_labels` `[B]`.
        padding_mask: `[B, L]`, to count real tokens (for tokens/s).

    Returns:
        `PretrainingSums` of float32 scalars.
    """
    # Softmax cross-entropy in float32 even under mixed precision.
    mlm_logits = tf.cast(outputs["mlm_logits"], tf.float32)
    nsp_logits = tf.cast(outputs["nsp_logits"], tf.float32)
    weights = tf.cast(labels["masked_lm_weights"], tf.float32)
    mlm_ids = labels["masked_lm_ids"]
    nsp_labels = labels["next_sentence_labels"]

    mlm_loss = tf.nn.sparse_softmax_cross_entropy_with_logits(mlm_ids, mlm_logits)  # [B, P]
    mlm_hit = tf.cast(tf.equal(tf.argmax(mlm_logits, -1, output_type=mlm_ids.dtype), mlm_ids), tf.float32)
    nsp_loss = tf.nn.sparse_softmax_cross_entropy_with_logits(nsp_labels, nsp_logits)  # [B]
    nsp_hit = tf.cast(tf.equal(tf.argmax(nsp_logits, -1, output_type=nsp_labels.dtype), nsp_labels), tf.float32)
    return PretrainingSums(
        mlm_loss=tf.reduce_sum(mlm_loss * weights),
        mlm_weight=tf.reduce_sum(weights),
        mlm_correct=tf.reduce_sum(mlm_hit * weights),
        nsp_loss=tf.reduce_sum(nsp_loss),
        nsp_count=tf.cast(tf.size(nsp_labels), tf.float32),
        nsp_correct=tf.reduce_sum(nsp_hit),
        tokens=tf.reduce_sum(tf.cast(padding_mask, tf.float32)),
    )


def pretraining_metrics(sums):
    """`{loss, mlm_loss, mlm_accuracy, nsp_loss, nsp_accuracy}` from (global) `PretrainingSums`."""
    mlm_loss = sums.mlm_loss / max(sums.mlm_weight, 1e-5)
    nsp_loss = sums.nsp_loss / max(sums.nsp_count, 1.0)
    return {
        "loss": mlm_loss + nsp_loss,
        "mlm_loss": mlm_loss,
        "mlm_accuracy": sums.mlm_correct / max(sums.mlm_weight, 1e-5),
        "nsp_loss": nsp_loss,
        "nsp_accuracy": sums.nsp_correct / max(sums.nsp_count, 1.0),
    }
