"""Our SQuAD scorer against the official v1.1 / v2.0 rules, on hand-made cases worked out by hand."""

import gzip
import json

import pytest

from keras_bert.metrics.squad_evaluation import evaluate_squad_file
from keras_bert.metrics.squad_evaluation import evaluate_squad_v1
from keras_bert.metrics.squad_evaluation import evaluate_squad_v2
from keras_bert.metrics.squad_evaluation import f1_v1
from keras_bert.metrics.squad_evaluation import f1_v2
from keras_bert.metrics.squad_evaluation import normalize_answer


def dataset(*qas):
    return {"version": "x", "data": [{"title": "t", "paragraphs": [{"context": "c", "qas": [
        {"id": qid, "question": "q?", "answers": [{"text": t, "answer_start": 0} for t in golds]}
        for qid, golds in qas
    ]}]}]}


@pytest.mark.parametrize("text, expected", [
    ("The Cat's  hat.", "cats hat"),            # articles, punctuation, spaces
    ("An apple, a day", "apple day"),
    ("theater anthem", "theater anthem"),       # articles only as whole words
    ("A-B", "ab"),                              # punctuation is removed, not split on
    ("  Élan\tVital ", "élan vital"),           # non-ASCII letters stay; only case changes
    ("the", ""),
    ("«quoted»", "«quoted»"),                   # only ASCII punctuation is removed
])
def test_normalize_answer_follows_the_official_rule(text, expected):
    assert normalize_answer(text) == expected


def test_f1_counts_shared_tokens_with_multiplicity():
    # pred [broncos, of, denver] vs gold [denver, broncos]: 2 shared, P 2/3, R 1 -> 0.8
    assert f1_v1("the Broncos of Denver", "Denver Broncos") == pytest.approx(0.8)
    # pred [a, a]... articles go; [x, x, y] vs [x, y, y]: 2 shared, P = R = 2/3
    assert f1_v1("x x y", "x y y") == pytest.approx(2 / 3)
    assert f1_v1("x", "y") == 0.0


def test_empty_answers_differ_between_v1_and_v2():
    assert f1_v1("", "") == 0.0       # v1.1: nothing shared -> 0
    assert f1_v2("", "") == 1.0       # v2.0: both empty agree
    assert f1_v2("", "Denver") == 0.0
    assert f1_v2("The", "") == 1.0    # "The" normalizes to empty


V1 = dataset(
    ("q1", ["Denver Broncos", "The Denver Broncos", "Broncos"]),
    ("q2", ["Santa Clara, California"]),
    ("q3", ["1"]),
)


def test_v1_max_over_gold_answers_and_missing_scores_zero():
    results = evaluate_squad_v1(V1, {"q1": "denver broncos!", "q2": "Santa Clara"})
    # q1 EM 1 F1 1; q2 EM 0 F1 0.8 ([santa, clara] vs [santa, clara, california]); q3 missing: 0.
    assert results == {
        "exact_match": pytest.approx(100 / 3), "f1": pytest.approx(60.0), "total": 3,
        "missing": 1,
    }


V2 = dataset(
    ("q1", ["Denver Broncos", "The Denver Broncos"]),
    ("q2", ["Santa Clara, California"]),
    ("q3", []),          # unanswerable
    ("q4", ["1", "the"]),  # "the" normalizes to "" and is dropped from the golds
)
V2_PREDICTIONS = {"q1": "Denver Broncos", "q2": "Santa Clara", "q3": "", "q4": ""}


def test_v2_has_ans_no_ans_breakdown():
    results = evaluate_squad_v2(V2, V2_PREDICTIONS)
    # exact: q1 1, q2 0, q3 1, q4 0; f1: 1, 0.8, 1, 0.
    assert results == pytest.approx({
        "exact": 50.0, "f1": 70.0, "total": 4,
        "HasAns_exact": 100 / 3, "HasAns_f1": 60.0, "HasAns_total": 3,
        "NoAns_exact": 100.0, "NoAns_f1": 100.0, "NoAns_total": 1,
    })


def test_v2_no_answer_probabilities_threshold_and_best_threshold():
    na_probs = {"q1": 0.1, "q2": 0.5, "q3": 0.9, "q4": 0.3}
    results = evaluate_squad_v2(V2, V2_PREDICTIONS, na_probs, na_prob_thresh=0.4)
    # Above 0.4 the model abstains: q2 (has an answer) -> 0, q3 (none) -> 1.
    assert results["exact"] == pytest.approx(50.0) and results["f1"] == pytest.approx(50.0)
    # Best threshold, by hand: start at 1 (q3 answered empty); add q1 (+1, at 0.1), q4 (+0),
    # q2 (+0.8 F1, at 0.5), q3 (+0): best F1 2.8 / 4 at 0.5, best EM 2 / 4 at 0.1.
    assert results["best_f1"] == pytest.approx(70.0) and results["best_f1_thresh"] == 0.5
    assert results["best_exact"] == pytest.approx(50.0) and results["best_exact_thresh"] == 0.1


def test_v2_refuses_missing_predictions():
    with pytest.raises(ValueError, match="1 of 4 questions have no prediction"):
        evaluate_squad_v2(V2, {"q1": "x", "q2": "", "q3": ""})


def test_file_scoring_reads_gzip_and_returns_none_without_answers(tmp_path):
    path = tmp_path / "dev.json.gz"
    with gzip.open(path, "wt") as f:
        json.dump(V1, f)
    assert evaluate_squad_file(path, {"q1": "Broncos", "q2": "x", "q3": "1"})["exact_match"] == (
        pytest.approx(200 / 3)
    )
    unlabelled = dataset(("q1", []))
    (tmp_path / "test.json").write_text(json.dumps(unlabelled))
    assert evaluate_squad_file(tmp_path / "test.json", {"q1": "x"}) is None
