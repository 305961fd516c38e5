"""Masked-LM + next-sentence loss as sums, so replicas and accumulation steps combine exactly."""

import collections

from keras import ops

# Per-batch sums; ratios of sums over the global batch give the loss and the accuracies.
PretrainingSums = collections.namedtuple(
    "PretrainingSums",
    ["mlm_loss", "mlm_weight", "mlm_correct", "nsp_loss", "nsp_count", "nsp_correct", "tokens",
     "examples"],
)


def pretraining_sums(outputs, labels, padding_mask):
    """Weighted masked-LM cross-entropy and NSP cross-entropy, summed over a batch.

    Written in `keras.ops`: the same sums on every backend (and inside tf.distribute replicas).

    Args:
        outputs: `BertPretrainer` outputs, `mlm_logits` `[B, P, V]` and `nsp_logits` `[B, 2]`.
        labels: `masked_lm_ids` `[B, P]`, `masked_lm_weights` `[B, P]` (0 on padded prediction
            slots), `next_sentence_labels` `[B]` (absent for packed sequences, which have no
            sentence pairs: the NSP sums are then 0).
        padding_mask: `[B, L]`, to count real tokens (for tokens/s).

    Returns:
        `PretrainingSums` of float32 scalars.
    """
    # Softmax cross-entropy in float32 even under mixed precision.
    mlm_logits = ops.cast(outputs["mlm_logits"], "float32")
    weights = ops.cast(labels["masked_lm_weights"], "float32")
    mlm_ids = labels["masked_lm_ids"]

    mlm_loss = ops.sparse_categorical_crossentropy(mlm_ids, mlm_logits, from_logits=True)  # [B, P]
    mlm_hit = ops.cast(ops.equal(ops.argmax(mlm_logits, -1), ops.cast(mlm_ids, "int32")), "float32")
    nsp_sums = [ops.zeros((), "float32")] * 3
    if "next_sentence_labels" in labels:
        nsp_logits = ops.cast(outputs["nsp_logits"], "float32")
        nsp_labels = labels["next_sentence_labels"]
        nsp_loss = ops.sparse_categorical_crossentropy(
            nsp_labels, nsp_logits, from_logits=True)  # [B]
        nsp_hit = ops.cast(
            ops.equal(ops.argmax(nsp_logits, -1), ops.cast(nsp_labels, "int32")), "float32")
        nsp_sums = [ops.sum(nsp_loss), ops.cast(ops.size(nsp_labels), "float32"), ops.sum(nsp_hit)]
    return PretrainingSums(
        mlm_loss=ops.sum(mlm_loss * weights),
        mlm_weight=ops.sum(weights),
        mlm_correct=ops.sum(mlm_hit * weights),
        nsp_loss=nsp_sums[0],
        nsp_count=nsp_sums[1],
        nsp_correct=nsp_sums[2],
        tokens=ops.sum(ops.cast(padding_mask, "float32")),
        examples=ops.cast(ops.shape(padding_mask)[0], "float32"),
    )


def pretraining_metrics(sums):
    """`{loss, mlm_loss, mlm_accuracy, nsp_loss, nsp_accuracy}` from (global) `PretrainingSums`
    (`{loss, mlm_loss, mlm_accuracy}` when the batches had no next-sentence labels)."""
    mlm_loss = sums.mlm_loss / max(sums.mlm_weight, 1e-5)
    metrics = {
        "loss": mlm_loss,
        "mlm_loss": mlm_loss,
        "mlm_accuracy": sums.mlm_correct / max(sums.mlm_weight, 1e-5),
    }
    if sums.nsp_count:
        metrics["nsp_loss"] = sums.nsp_loss / sums.nsp_count
        metrics["nsp_accuracy"] = sums.nsp_correct / sums.nsp_count
        metrics["loss"] += metrics["nsp_loss"]
    return metrics
