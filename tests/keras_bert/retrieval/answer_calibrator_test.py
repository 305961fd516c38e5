"""`AnswerCalibrator`: fitting recovers the logistic model that generated the data (the oracle:
its known weights, within the sampling error measured below), the arithmetic of the features and
probabilities against hand computation, its JSON file, and the threshold rule."""

import json
import math

import numpy as np
import pytest

from keras_bert.retrieval.answer_calibrator import (
    FEATURES, AnswerCalibrator, choose_threshold, logsumexp, span_features, window_statistics,
)

pytestmark = pytest.mark.backend_portable


def test_features_worked_out_by_hand():
    row = span_features(3.0, 2.0, cls_logits=(-1.0, -2.5), lse=(4.0, 3.5), cosine=0.6,
                        bm25_match=0.25, rank=2)
    assert row == {"span_logit": 5.0, "span_log_prob": (3.0 - 4.0) + (2.0 - 3.5),
                   "null_gap": 5.0 + 3.5, "cosine": 0.6, "bm25_match": 0.25,
                   "inverse_rank": 0.5}
    assert set(row) == set(FEATURES)


def test_window_statistics_use_the_passage_tokens_only():
    # [CLS] q [SEP] p1 p2 [SEP] pad: segment 1 holds p1, p2 and the closing [SEP].
    start = np.array([0.5, 9.0, 9.0, 1.0, 2.0, 9.0, 9.0])
    end = np.array([-0.5, 9.0, 9.0, 3.0, 0.0, 9.0, 9.0])
    segments = [0, 0, 0, 1, 1, 1, 0]
    cls, lse = window_statistics(start, end, segments)
    assert cls == (0.5, -0.5)
    assert lse[0] == pytest.approx(math.log(math.exp(1.0) + math.exp(2.0)), rel=1e-12)
    assert lse[1] == pytest.approx(math.log(math.exp(3.0) + math.exp(0.0)), rel=1e-12)
    assert logsumexp([1000.0, 1000.0]) == pytest.approx(1000.0 + math.log(2.0))
    with pytest.raises(ValueError, match="no passage tokens"):
        window_statistics(start, end, [0] * 7)


def test_probability_is_the_logistic_of_the_weighted_features():
    c = AnswerCalibrator([0.5, -2.0], 0.25, ("span_logit", "cosine"), threshold=0.3)
    row = {"span_logit": 4.0, "cosine": 0.5, "bm25_match": 9.0}  # unused features ignored
    assert c.probability(row) == pytest.approx(1 / (1 + math.exp(-(0.25 + 2.0 - 1.0))))
    np.testing.assert_allclose(c.probability([row, row]), [c.probability(row)] * 2)
    with pytest.raises(ValueError, match="'cosine'.*embedder"):
        c.probability({"span_logit": 1.0, "cosine": None})
    with pytest.raises(ValueError, match="Unknown calibrator features"):
        AnswerCalibrator([1.0], 0.0, ("logit",))


def test_fit_recovers_the_generating_weights():
    rng = np.random.default_rng(0)
    true_w, true_b = np.array([0.8, -1.5, 3.0]), -1.0
    features = ("span_logit", "span_log_prob", "cosine")
    n = 20000
    x = np.column_stack([rng.normal(2, 3, n), rng.normal(-5, 2, n), rng.uniform(0, 1, n)])
    p = 1 / (1 + np.exp(-(x @ true_w + true_b)))
    rows = [dict(zip(features, r)) for r in x]
    # Soft targets (the probabilities themselves) and hard 0/1 draws both estimate the model.
    soft = AnswerCalibrator.fit(rows, p, features, l2=0.0)
    np.testing.assert_allclose(soft.weights, true_w, rtol=1e-6)
    assert soft.bias == pytest.approx(true_b, abs=1e-5)
    hard = AnswerCalibrator.fit(rows, rng.uniform(size=n) < p, features, l2=0.0)
    # From 0/1 draws the fit is off by sampling error: within 4 standard errors of the true
    # parameters, the standard errors from the Fisher information at the true model.
    design = np.column_stack([np.ones(n), x])  # [n, 1 + f]
    fisher = (design * (p * (1 - p))[:, None]).T @ design
    standard_errors = np.sqrt(np.diag(np.linalg.inv(fisher)))
    errors = np.abs(np.concatenate([[hard.bias - true_b], hard.weights - true_w]))
    assert np.all(errors < 4 * standard_errors), (errors, standard_errors)


def test_save_and_load(tmp_path):
    c = AnswerCalibrator([1.0, 2.0], -3.0, ("null_gap", "bm25_match"), threshold=0.2,
                         info={"ranker": "bm25", "passages": 3})
    path = tmp_path / "answer_calibrator.json"
    c.save(path)
    back = AnswerCalibrator.load(path)
    assert back.to_dict() == c.to_dict()
    (tmp_path / "broken.json").write_text('{"features": ["null_gap"],')
    with pytest.raises(ValueError, match="not a calibrator's JSON"):
        AnswerCalibrator.load(tmp_path / "broken.json")
    (tmp_path / "partial.json").write_text(json.dumps({"features": ["null_gap"]}))
    with pytest.raises(ValueError, match=r"lacks \['weights', 'bias'\]"):
        AnswerCalibrator.load(tmp_path / "partial.json")


def test_threshold_abstains_on_at_most_the_allowed_share():
    rng = np.random.default_rng(1)
    answerable = rng.uniform(size=1000)
    t = choose_threshold(answerable, 0.04)
    assert (answerable < t).mean() == pytest.approx(0.04, abs=1e-9)
    assert (answerable <= t).mean() > 0.04  # the highest such threshold
    assert choose_threshold([0.9], 0.04) == 0.9
