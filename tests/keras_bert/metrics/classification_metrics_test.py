"""GLUE metrics against values worked out by hand."""

import math
import random

import pytest

from keras_bert.metrics.classification_metrics import classification_metrics

LABELS = [1, 1, 1, 0, 0, 0, 1, 0]
PREDS = [1, 1, 0, 0, 0, 1, 1, 1]  # tp 3, fn 1, tn 2, fp 2


def test_accuracy_f1_and_matthews_by_hand():
    results = classification_metrics(LABELS, PREDS, ("accuracy", "f1", "mcc"))
    assert results["accuracy"] == pytest.approx(5 / 8)
    assert results["f1"] == pytest.approx(2 * 3 / (2 * 3 + 2 + 1))  # 2tp / (2tp + fp + fn)
    assert results["mcc"] == pytest.approx((3 * 2 - 2 * 1) / math.sqrt(5 * 4 * 4 * 3))


def test_f1_and_matthews_equal_their_definitions_on_random_labelings():
    # Counts by a plain loop, then the textbook formulas; fp, fn, tp and tn all differ here.
    rng = random.Random(0)
    for _ in range(200):
        n = rng.randrange(1, 30)
        labels = [rng.randrange(2) for _ in range(n)]
        preds = [rng.randrange(2) for _ in range(n)]
        tp = fp = fn = tn = 0
        for label, pred in zip(labels, preds):
            tp += label == 1 and pred == 1
            fp += label == 0 and pred == 1
            fn += label == 1 and pred == 0
            tn += label == 0 and pred == 0
        results = classification_metrics(labels, preds, ("accuracy", "f1", "mcc"))
        assert results["accuracy"] == pytest.approx((tp + tn) / n)
        assert results["f1"] == pytest.approx(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
        margins = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
        mcc = (tp * tn - fp * fn) / math.sqrt(margins) if margins else 0.0
        assert results["mcc"] == pytest.approx(mcc)


def test_degenerate_cases():
    # One example scores; no positive anywhere gives F1 0 (not a division by zero).
    assert classification_metrics([1], [1], ("accuracy", "f1")) == {"accuracy": 1.0, "f1": 1.0}
    assert classification_metrics([0, 0], [0, 0], ("f1",)) == {"f1": 0.0}
    assert classification_metrics([1, 0], [0, 0], ("f1", "mcc")) == {"f1": 0.0, "mcc": 0.0}
    assert classification_metrics([1, 0, 1], [1, 0, 1], ("mcc",)) == {"mcc": pytest.approx(1.0)}
    assert classification_metrics([1, 0], [0, 1], ("mcc",)) == {"mcc": pytest.approx(-1.0)}


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="Unknown metrics"):
        classification_metrics([1], [1], ("auc",))
    with pytest.raises(ValueError, match="equal 1-D shapes"):
        classification_metrics([1, 0], [1], ("accuracy",))
    with pytest.raises(ValueError, match="^No examples to score.$"):
        classification_metrics([], [], ("accuracy",))
