"""GLUE's classification metrics: accuracy, F1 of the positive class, Matthews correlation."""

import math

import numpy as np

from keras_bert.api_export import keras_bert_export


def _confusion(labels, predictions):
    labels, predictions = np.asarray(labels), np.asarray(predictions)
    if labels.shape != predictions.shape or labels.ndim != 1:
        raise ValueError(
            f"labels {labels.shape} and predictions {predictions.shape} must be equal 1-D shapes."
        )
    if labels.size == 0:
        raise ValueError("No examples to score.")
    return labels, predictions


def accuracy(labels, predictions):
    labels, predictions = _confusion(labels, predictions)
    return float(np.mean(labels == predictions))


def f1(labels, predictions, positive=1):
    """F1 of class `positive` (GLUE's MRPC / QQP F1); 0 when there is no true positive."""
    labels, predictions = _confusion(labels, predictions)
    tp = np.sum((predictions == positive) & (labels == positive))
    fp = np.sum((predictions == positive) & (labels != positive))
    fn = np.sum((predictions != positive) & (labels == positive))
    return float(2 * tp / (2 * tp + fp + fn)) if tp else 0.0


def matthews_corrcoef(labels, predictions):
    """Matthews correlation of two binary labelings (CoLA); 0 when a margin is empty."""
    labels, predictions = _confusion(labels, predictions)
    tp = float(np.sum((predictions == 1) & (labels == 1)))
    tn = float(np.sum((predictions == 0) & (labels == 0)))
    fp = float(np.sum((predictions == 1) & (labels == 0)))
    fn = float(np.sum((predictions == 0) & (labels == 1)))
    denominator = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return (tp * tn - fp * fn) / denominator if denominator else 0.0


METRICS = {"accuracy": accuracy, "f1": f1, "mcc": matthews_corrcoef}


@keras_bert_export("keras_bert.metrics.classification_metrics")
def classification_metrics(labels, predictions, names=("accuracy",)):
    """`{name: value}` for each of `names` (`accuracy`, `f1`, `mcc`), values in [0, 1] / [-1, 1]."""
    unknown = [name for name in names if name not in METRICS]
    if unknown:
        raise ValueError(f"Unknown metrics {unknown}; use some of {sorted(METRICS)}.")
    return {name: METRICS[name](labels, predictions) for name in names}
