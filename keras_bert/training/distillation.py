"""Soft targets from a teacher model: what a distilled student (and QAT's teacher mix) trains on.

Hinton et al. 2015, "Distilling the Knowledge in a Neural Network"; for BERT students, Sanh et
al. 2019 (DistilBERT) and Jiao et al. 2020 (TinyBERT) on SQuAD's start/end distributions.
"""

import numpy as np

from keras_bert.api_export import keras_bert_export


def _softmax(logits, axis=-1):
    shifted = logits - np.max(logits, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


@keras_bert_export("keras_bert.training.teacher_probabilities")
def teacher_probabilities(teacher, inputs, batch_size=32):
    """The teacher's softmax outputs on `inputs`, as float32 NumPy arrays.

    Args:
        teacher: a task model (outputs a tensor `logits`, or a dict of them).
        inputs: the model's input dict (`token_ids`, `segment_ids`, `padding_mask`).
        batch_size: prediction batch size.

    Returns:
        `{output name: probabilities}` (`"logits"` for a single output). Span outputs
        (`start_logits`, `end_logits`: one logit per position) put no probability on padded
        positions, which are never answers.
    """
    outputs = teacher.predict(inputs, batch_size=batch_size, verbose=0)
    outputs = outputs if isinstance(outputs, dict) else {"logits": outputs}
    mask = np.asarray(inputs["padding_mask"]) > 0
    probabilities = {}
    for name, logits in outputs.items():
        logits = np.asarray(logits, np.float32)
        if name != "logits":  # a distribution over positions
            logits = np.where(mask, logits, -np.inf)
        probabilities[name] = _softmax(logits).astype(np.float32)
    return probabilities


@keras_bert_export("keras_bert.training.mix_targets")
def mix_targets(labels, probabilities, weight):
    """Dense targets `(1 - weight) * one_hot(labels) + weight * probabilities`.

    A categorical cross-entropy against them is `(1 - weight) * CE(gold) + weight *
    CE(teacher)`: with `weight=0` the usual fine-tuning loss, with `weight=1` pure distillation.

    Args:
        labels: int class indices (`[N]`, or `[N, S]` per token), or a dict of them keyed like
            `probabilities` (SQuAD: `start_logits`, `end_logits`).
        probabilities: `teacher_probabilities`'s output (a bare array for a single output).
        weight: float in [0, 1], the teacher's share.

    Returns:
        float32 targets of `probabilities`' shapes, in `labels`' structure.
    """
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight must be in [0, 1], got {weight}.")

    def mix(hard, soft):
        soft = np.asarray(soft, np.float32)
        hard = np.asarray(hard)
        if hard.shape != soft.shape[:-1]:
            raise ValueError(
                f"labels of shape {hard.shape} do not index teacher probabilities of shape "
                f"{soft.shape}."
            )
        one_hot = np.eye(soft.shape[-1], dtype=np.float32)[hard]
        return (1.0 - weight) * one_hot + weight * soft

    if isinstance(labels, dict):
        return {name: mix(labels[name], probabilities[name]) for name in labels}
    if isinstance(probabilities, dict):
        probabilities = probabilities["logits"]
    return mix(labels, probabilities)
