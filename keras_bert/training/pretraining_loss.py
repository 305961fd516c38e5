"""Masked-LM + next-sentence loss as sums, so replicas and accumulation steps combine exactly."""

import collections

from keras import ops

# Per-batch sums; ratios of sums over the global batch give the loss and the accuracies.
PretrainingSums = collections.namedtuple(
    "PretrainingSums",
    ["mlm_loss", "mlm_weight", "mlm_correct", "nsp_loss", "nsp_count", "nsp_correct", "tokens"],
)


def pretraining_sums(outputs, labels, padding_mask):
    """Weighted masked-LM cross-entropy and NSP cross-entropy, summed over a batch.

    Written in `keras.ops`: the same sums on every backend (and inside tf.distribute replicas).

    Args:
        outputs: `BertPretrainer` outputs, `mlm_logits` `[B, P, V]` and `nsp_logits` `[B, 2]`.
        labels: `masked_lm_ids` `[B, P]`, `masked_lm_weights` `[B, P]` (0 on padded prediction
            slots), `next_sentence_labels` `[B]`.
        padding_mask: `[B, L]`, to count real tokens (for tokens/s).

    Returns:
        `PretrainingSums` of float32 scalars.
    """
    # Softmax cross-entropy in float32 even under mixed precision.
    mlm_logits = ops.cast(outputs["mlm_logits"], "float32")
    nsp_logits = ops.cast(outputs["nsp_logits"], "float32")
    weights = ops.cast(labels["masked_lm_weights"], "float32")
    mlm_ids = labels["masked_lm_ids"]
    nsp_labels = labels["next_sentence_labels"]

    mlm_loss = ops.sparse_categorical_crossentropy(mlm_ids, mlm_logits, from_logits=True)  # [B, P]
    mlm_hit = ops.cast(ops.equal(ops.argmax(mlm_logits, -1), ops.cast(mlm_ids, "int32")), "float32")
    nsp_loss = ops.sparse_categorical_crossentropy(nsp_labels, nsp_logits, from_logits=True)  # [B]
    nsp_hit = ops.cast(
        ops.equal(ops.argmax(nsp_logits, -1), ops.cast(nsp_labels, "int32")), "float32")
    return PretrainingSums(
        mlm_loss=ops.sum(mlm_loss * weights),
        mlm_weight=ops.sum(weights),
        mlm_correct=ops.sum(mlm_hit * weights),
        nsp_loss=ops.sum(nsp_loss),
        nsp_count=ops.cast(ops.size(nsp_labels), "float32"),
        nsp_correct=ops.sum(nsp_hit),
        tokens=ops.sum(ops.cast(padding_mask, "float32")),
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
