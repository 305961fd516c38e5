"""`keras_bert.metrics.conlleval` against the conlleval script's counting rules
(`tests/reference/official_conlleval.py`): the same chunk counts, hence the same P/R/F1, on 1,000
generated IOB1 and IOB2 sentence sets."""

import random

from keras_bert.metrics.conlleval import conlleval
from tests.reference import official_conlleval

TYPES = ("PER", "LOC", "ORG", "MISC")


def _sentence(rng, iob2):
    tags, inside = [], None
    for _ in range(rng.randrange(1, 15)):
        r = rng.random()
        if r < 0.45:
            tags.append("O")
            inside = None
        elif inside and r < 0.75:
            tags.append(f"I-{inside}")
        else:
            inside = rng.choice(TYPES)
            tags.append(f"B-{inside}" if iob2 or rng.random() < 0.3 else f"I-{inside}")
    return tags


def _edit(rng, tags):
    """A prediction: the gold tags with a few tokens' prefix or type changed, dropped or added."""
    out = list(tags)
    for i in range(len(out)):
        if rng.random() < 0.15:
            out[i] = rng.choice(["O", f"B-{rng.choice(TYPES)}", f"I-{rng.choice(TYPES)}"])
    return out


def test_chunk_counts_and_scores_equal_conlleval_on_1000_generated_sets():
    rng = random.Random(0)
    for case in range(1000):
        iob2 = case % 2 == 0
        gold = [_sentence(rng, iob2) for _ in range(rng.randrange(1, 12))]
        pred = [_edit(rng, s) for s in gold]
        ours = conlleval(gold, pred)
        correct, found_gold, found_pred = official_conlleval.counts(gold, pred)
        assert (ours["correct"], ours["found_gold"], ours["found_predicted"]) == (
            correct, found_gold, found_pred), (gold, pred)
        precision = 100.0 * correct / found_pred if found_pred else 0.0
        recall = 100.0 * correct / found_gold if found_gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        # conlleval prints two decimals.
        assert (f"{ours['precision']:.2f}", f"{ours['recall']:.2f}", f"{ours['f1']:.2f}") == (
            f"{precision:.2f}", f"{recall:.2f}", f"{f1:.2f}")
