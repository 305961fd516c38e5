"""GLUE metrics against values worked out by hand."""

import math

import pytest

from keras_bert.metrics.classification_metrics import classification_metrics

LABELS = [1, 1, 1, 0, 0, 0, 1, 0]
PREDS = [1, 1, 0, 0, 0, 1, 1, 1]  # tp 3, fn 1, tn 2, fp 2


def test_accuracy_f1_and_matthews_by_hand():
    results = classification_metrics(LABELS, PREDS, ("accuracy", "f1", "mcc"))
    assert results["accuracy"] == pytest.approx(5 / 8)
    assert results["f1"] == pytest.approx(2 * 3 / (2 * 3 + 2 + 1))  # 2tp / (2tp + fp + fn)
    assert results["mcc"] == pytest.approx((3 * 2 - 2 * 1) / math.sqrt(5 * 4 * 4 * 3))


def test_degenerate_cases():
    assert classification_metrics([1, 0], [0, 0], ("f1", "mcc")) == {"f1": 0.0, "mcc": 0.0}
    assert classification_metrics([1, 0, 1], [1, 0, 1], ("mcc",)) == {"mcc": pytest.approx(1.0)}
    assert classification_metrics([1, 0], [0, 1], ("mcc",)) == {"mcc": pytest.approx(-1.0)}


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="Unknown metrics"):
        classification_metrics([1], [1], ("auc",))
    with pytest.raises(ValueError, match="equal 1-D shapes"):
        classification_metrics([1, 0], [1], ("accuracy",))
