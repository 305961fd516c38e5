"""Entity scoring against what the conlleval script prints for the same hand-made tag files."""

import pytest

from keras_bert.metrics.conlleval import conlleval


def score(gold, pred):
    results = conlleval(gold, pred)
    return results["precision"], results["recall"], results["f1"], results["correct"]


def test_a_wrong_type_is_a_wrong_entity():
    # conlleval: "accuracy: 75.00%; precision: 50.00%; recall: 50.00%; FB1: 50.00"
    results = conlleval([["B-PER", "I-PER", "O", "B-LOC"]], [["B-PER", "I-PER", "O", "B-ORG"]])
    assert (results["precision"], results["recall"], results["f1"]) == (50.0, 50.0, 50.0)
    assert results["accuracy"] == 75.0
    assert results["per_type"]["LOC"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 1,
                                           "found_predicted": 0, "correct": 0}
    assert results["per_type"]["ORG"]["support"] == 0


def test_a_short_boundary_is_a_wrong_entity():
    assert score([["B-PER", "I-PER"]], [["B-PER", "O"]]) == (0.0, 0.0, 0.0, 0)
    assert score([["B-PER", "I-PER", "O"]], [["B-PER", "I-PER", "I-PER"]]) == (0.0, 0.0, 0.0, 0)


def test_iob1_and_iob2_spell_the_same_entity():
    # IOB1 may open an entity with I-; conlleval reads both as one 2-token PER.
    assert score([["I-PER", "I-PER", "O"]], [["B-PER", "I-PER", "O"]]) == (100.0, 100.0, 100.0, 1)


def test_adjacent_entities_of_one_type():
    # Gold: two PER entities (B B); predicted: one spanning both -> nothing correct.
    assert score([["B-PER", "B-PER"]], [["B-PER", "I-PER"]]) == (0.0, 0.0, 0.0, 0)
    # A type change inside an I- run starts a new entity.
    results = conlleval([["I-PER", "I-LOC"]], [["I-PER", "I-LOC"]])
    assert (results["found_gold"], results["correct"]) == (2, 2)


def test_sentences_do_not_merge_entities():
    results = conlleval([["B-PER"], ["I-PER", "O"]], [["B-PER"], ["I-PER", "O"]])
    assert (results["found_gold"], results["found_predicted"], results["correct"]) == (2, 2, 2)


def test_precision_and_recall_differ():
    gold = [["B-ORG", "O", "B-PER", "I-PER", "O", "B-LOC"]]
    pred = [["B-ORG", "O", "B-PER", "I-PER", "O", "O"]]
    p, r, f, c = score(gold, pred)
    assert (p, c) == (100.0, 2) and r == pytest.approx(200 / 3) and f == pytest.approx(80.0)


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError, match="Sentence 0: 2 gold tags but 1 predicted"):
        conlleval([["O", "O"]], [["O"]])
