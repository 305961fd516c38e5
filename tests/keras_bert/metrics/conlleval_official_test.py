"""`keras_bert.metrics.conlleval` against the conlleval script's rules
(`tests/reference/official_conlleval.py`): the same report, line for line at the script's printed
precision, on 1,000 generated IOB1 and IOB2 sentence sets and on real predictions for the whole
CoNLL-2003 validation and test files."""

import collections
import random

import pytest

from keras_bert.data.tasks.conll_ner import read_conll
from keras_bert.metrics.conlleval import conlleval
from tests.data_paths import shared_data_dir
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


def _report(result):
    """`conlleval`'s result printed the way the script prints it."""
    lines = [f"processed {result['tokens']} tokens with {result['found_gold']} phrases; "
             f"found: {result['found_predicted']} phrases; correct: {result['correct']}."]
    if result["tokens"]:
        lines.append("accuracy: %6.2f%%; precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f" % (
            result["accuracy"], result["precision"], result["recall"], result["f1"]))
    for kind, t in sorted(result["per_type"].items()):
        lines.append("%17s: precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f  %d" % (
            kind, t["precision"], t["recall"], t["f1"], t["found_predicted"]))
    return lines


def _iobes_sentence(rng, length=None):
    """Any mix of B-, I-, E-, S- and O, well formed or not: the rules must agree on every one."""
    tags = []
    for _ in range(length or rng.randrange(1, 15)):
        prefix = rng.choice("BIESOO.")
        # "." is the script's punctuation tag; a type may itself contain "-" (split at the first).
        kind = rng.choice(("PER", "ORG-GPE"))
        tags.append(prefix if prefix in "O." else f"{prefix}-{kind}")
    return tags


def test_iobes_reports_equal_the_python_ports_on_1000_generated_sets():
    rng = random.Random(2)
    for _ in range(1000):
        gold = [_iobes_sentence(rng) for _ in range(rng.randrange(1, 8))]
        pred = [_iobes_sentence(rng, len(s)) if rng.random() < 0.3 else list(s) for s in gold]
        pred = [[rng.choice(["O", t]) if rng.random() < 0.2 else t for t in s] for s in pred]
        assert _report(conlleval(gold, pred)) == official_conlleval.report(gold, pred, iobes=True), (
            gold, pred)


def test_the_printed_report_equals_conllevals_on_1000_generated_sets():
    rng = random.Random(1)
    for case in range(1000):
        gold = [_sentence(rng, case % 2 == 0) for _ in range(rng.randrange(1, 12))]
        pred = [_edit(rng, s) for s in gold]
        assert _report(conlleval(gold, pred)) == official_conlleval.report(gold, pred), (gold, pred)


def _unigram_tagger(sentences):
    """The most frequent tag of each training word (the CoNLL-2003 style baseline); "O" for
    unseen words. Its IOB1 output has real errors: wrong types, split and merged chunks, I-
    tags after other types."""
    tags = collections.defaultdict(collections.Counter)
    for sentence in sentences:
        for word, tag in zip(sentence.words, sentence.tags):
            tags[word][tag] += 1
    best = {word: counter.most_common(1)[0][0] for word, counter in tags.items()}
    return lambda words: [best.get(w, "O") for w in words]


@pytest.mark.large
def test_the_printed_report_equals_conllevals_on_real_full_file_predictions():
    data = shared_data_dir() / "conll2003"
    tag = _unigram_tagger(read_conll(data / "train.txt.gz"))
    f1 = {}
    for split in ("valid", "test"):
        sentences = read_conll(data / f"{split}.txt.gz")
        gold = [s.tags for s in sentences]
        pred = [tag(s.words) for s in sentences]
        ours = conlleval(gold, pred)
        assert _report(ours) == official_conlleval.report(gold, pred), split
        f1[split] = ours["f1"]
        # The published entity counts of CoNLL-2003 English (Tjong Kim Sang & De Meulder 2003).
        assert ours["found_gold"] == {"valid": 5942, "test": 5648}[split]
    # Real predictions, not a degenerate case: the baseline finds most entities but far from all.
    assert 40 < f1["test"] < f1["valid"] < 90, f1
