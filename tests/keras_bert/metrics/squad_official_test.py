"""The package's SQuAD scorers against the official scripts' rules
(`tests/reference/official_squad_v1.py`, `official_squad_v2.py`): identical numbers on 1,000
generated prediction sets over real dev questions (v1.1 and v2.0) and on a full-dev prediction
file (v1.1)."""

import gzip
import json
import random

import pytest

from keras_bert.metrics.squad_evaluation import evaluate_squad_v1
from keras_bert.metrics.squad_evaluation import evaluate_squad_v2
from tests.data_paths import shared_data_dir
from tests.reference import official_squad_v1
from tests.reference import official_squad_v2

NOISE = ["the", "a", "An", ",", ".", "!", "'s", "THE", "  ", "\u00e9t\u00e9", "--", "(", ")", "1,000"]


@pytest.fixture(scope="module")
def dev():
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt") as f:
        return json.load(f)


def _variant(rng, gold, words):
    """A prediction near or far from `gold`: exact, re-cased, with articles or punctuation
    added, cut, extended, empty, or unrelated words."""
    kind = rng.randrange(8)
    tokens = gold.split()
    if kind == 0:
        return gold
    if kind == 1:
        return gold.upper() if rng.random() < 0.5 else gold.lower()
    if kind == 2:
        return f"{rng.choice(NOISE)} {gold}{rng.choice(NOISE)}"
    if kind == 3 and len(tokens) > 1:
        cut = rng.randrange(1, len(tokens))
        return " ".join(tokens[:cut] if rng.random() < 0.5 else tokens[cut:])
    if kind == 4:
        return " ".join(tokens + rng.sample(words, 2))
    if kind == 5:
        return ""
    if kind == 6:
        return " ".join(rng.sample(words, rng.randrange(1, 4)))
    return " ".join(rng.choice(NOISE) for _ in range(rng.randrange(1, 4)))


def test_scores_equal_the_official_rules_on_1000_generated_prediction_sets(dev):
    rng = random.Random(0)
    questions = [qa for article in dev["data"][:4] for p in article["paragraphs"]
                 for qa in p["qas"]]
    words = [w for qa in questions for w in qa["question"].split()]
    for _ in range(1000):
        # 40 real dev questions (with all their gold answers) and generated predictions.
        sample = rng.sample(questions, 40)
        dataset = {"data": [{"paragraphs": [{"qas": sample}]}]}
        predictions = {}
        for qa in sample:
            if rng.random() < 0.05:
                continue  # unanswered: scores 0 and counts
            gold = rng.choice(qa["answers"])["text"]
            predictions[qa["id"]] = _variant(rng, gold, words)
        ours = evaluate_squad_v1(dataset, predictions)
        official = official_squad_v1.evaluate(dataset["data"], predictions)
        assert (ours["exact_match"], ours["f1"]) == (official["exact_match"], official["f1"])


def test_scores_equal_the_official_rules_on_a_full_dev_prediction_file(dev):
    # The first gold answer, perturbed for a third of the questions: a realistic score mix.
    rng = random.Random(1)
    predictions = {}
    for article in dev["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                gold = qa["answers"][0]["text"]
                predictions[qa["id"]] = gold if rng.random() < 0.66 else _variant(
                    rng, gold, paragraph["context"].split())
    ours = evaluate_squad_v1(dev, predictions)
    official = official_squad_v1.evaluate(dev["data"], predictions)
    assert ours["total"] == 10_570
    assert (ours["exact_match"], ours["f1"]) == (official["exact_match"], official["f1"])
    # A mix, not all-right or all-wrong: 2/3 gold by construction, and some variants normalize
    # to gold (measured EM 77.37); partial overlaps put F1 above EM.
    assert 66 < official["exact_match"] < 90 and official["f1"] > official["exact_match"]


def test_v2_scores_equal_the_official_rules_on_1000_generated_prediction_sets(dev):
    """v2.0 questions made from real dev questions (a third lose their answers), generated
    predictions (empty ones too) and no-answer probabilities with ties, in a shuffled order."""
    rng = random.Random(2)
    questions = [qa for article in dev["data"][:4] for p in article["paragraphs"]
                 for qa in p["qas"]]
    words = [w for qa in questions for w in qa["question"].split()]
    for case in range(1000):
        sample = [dict(qa, answers=[] if rng.random() < 0.33 else qa["answers"])
                  for qa in rng.sample(questions, 40)]
        dataset = {"data": [{"paragraphs": [{"qas": sample}]}]}
        predictions = {}
        for qa in sample:
            gold = rng.choice(qa["answers"])["text"] if qa["answers"] else ""
            predictions[qa["id"]] = "" if rng.random() < 0.3 else _variant(rng, gold, words)
        ids = list(predictions)
        rng.shuffle(ids)
        na_probs = {k: round(rng.random(), 1) for k in ids}  # ties on purpose
        # A na_prob file may name questions the dataset lacks; both ignore them.
        na_probs.update({f"other{i}": round(rng.random(), 1) for i in range(rng.choice([0, 2]))})
        threshold = rng.choice([1.0, 0.5])
        ours = evaluate_squad_v2(dataset, predictions, na_probs, na_prob_thresh=threshold)
        official = official_squad_v2.evaluate(dataset["data"], predictions, na_probs, threshold)
        assert set(ours) == set(official)
        for key, value in official.items():
            assert ours[key] == value, (case, key, ours[key], value)
