"""`Bm25Ranker` against Okapi BM25 worked out by hand, and against a direct transcription of the
formula on a random corpus."""

import math

import numpy as np
import pytest

from keras_bert.retrieval.bm25_ranker import Bm25Ranker, word_tokens

pytestmark = pytest.mark.backend_portable

# Three passages; terms (lower-cased \w+): lengths 4, 2, 6; avgdl = 12 / 3 = 4.
PASSAGES = ["The cat sat down.", "Dog barks!", "The cat and the dog ran"]


def test_terms_are_lower_cased_word_runs():
    assert word_tokens("The Rhine's source, 1,233 km—Swiss-Alps.") == [
        "the", "rhine", "s", "source", "1", "233", "km", "swiss", "alps"]
    assert word_tokens("Ça VA? Zürich") == ["ça", "va", "zürich"]


def test_scores_worked_out_by_hand():
    ranker = Bm25Ranker(PASSAGES, k1=1.2, b=0.75)
    # "cat": df 2 of N = 3, idf = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln(1.6) = 0.470004.
    #   passage 0: tf 1, |d| 4 = avgdl: 1 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 1)) = 2.2 / 2.2 = 1
    #   passage 2: tf 1, |d| 6: 2.2 / (1 + 1.2 * (0.25 + 0.75 * 1.5)) = 2.2 / 2.65 = 0.830189
    # "the": df 2, idf ln(1.6); passage 0 tf 1 -> 1; passage 2 tf 2, |d| 6:
    #   2 * 2.2 / (2 + 1.2 * 1.375) = 4.4 / 3.65 = 1.205479
    # "dog": df 2, idf ln(1.6); passage 1 tf 1, |d| 2: 2.2 / (1 + 1.2 * (0.25 + 0.375))
    #   = 2.2 / 1.75 = 1.257143; passage 2: 0.830189 as for "cat".
    idf = math.log(1.6)
    np.testing.assert_allclose(ranker.scores("cat"), [idf, 0, idf * 2.2 / 2.65], rtol=1e-12)
    np.testing.assert_allclose(ranker.scores("the cat"),
                               [2 * idf, 0, idf * (4.4 / 3.65 + 2.2 / 2.65)], rtol=1e-12)
    np.testing.assert_allclose(ranker.scores("dog"), [0, idf * 2.2 / 1.75, idf * 2.2 / 2.65],
                               rtol=1e-12)
    # A query term repeated counts twice; an unknown term adds nothing.
    np.testing.assert_allclose(ranker.scores("dog dog zebra"), 2 * ranker.scores("dog"))
    # "ran": df 1, idf = ln(1 + 2.5 / 1.5) = ln(8 / 3) = 0.980829.
    assert ranker.idf("ran") == pytest.approx(math.log(8 / 3), rel=1e-12)
    assert ranker.idf("zebra") == pytest.approx(math.log(1 + 3.5 / 0.5), rel=1e-12)
    assert ranker.rank("the cat").tolist() == [2, 0, 1]
    assert ranker.rank("dog", top_k=1).tolist() == [1]


def test_idf_stays_positive_for_a_term_in_every_passage():
    # Robertson's ln((N - df + 0.5) / (df + 0.5)) would be ln(0.5 / 3.5) < 0 here.
    ranker = Bm25Ranker(["alps one", "alps two", "alps three"])
    assert ranker.idf("alps") == pytest.approx(math.log(1 + 0.5 / 3.5))
    assert (ranker.scores("alps") > 0).all()


def test_matches_the_formula_written_out_on_a_random_corpus():
    rng = np.random.default_rng(0)
    vocabulary = [f"w{i}" for i in range(30)]
    passages = [" ".join(rng.choice(vocabulary, rng.integers(1, 40))) for _ in range(25)]
    query = " ".join(rng.choice(vocabulary, 6))
    k1, b = 0.9, 0.4
    docs = [p.split() for p in passages]
    avgdl = sum(map(len, docs)) / len(docs)
    expected = []
    for doc in docs:
        score = 0.0
        for term in query.split():
            df = sum(term in d for d in docs)
            tf = doc.count(term)
            idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / avgdl))
        expected.append(score)
    np.testing.assert_allclose(Bm25Ranker(passages, k1=k1, b=b).scores(query), expected,
                               rtol=1e-12)


def test_ties_keep_passage_order_and_empty_inputs_work():
    ranker = Bm25Ranker(["same text", "other", "same text"])
    assert ranker.rank("same").tolist() == [0, 2, 1]
    assert Bm25Ranker([]).scores("anything").shape == (0,)
    assert Bm25Ranker(["", "  "]).scores("x").tolist() == [0.0, 0.0]


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="one str"):
        Bm25Ranker("a single passage")
    with pytest.raises(ValueError, match="0 <= b <= 1"):
        Bm25Ranker(["a"], b=1.5)


def test_score_bound_is_the_limit_of_a_passage_made_of_the_query():
    ranker = Bm25Ranker(PASSAGES, k1=1.2, b=0.75)
    # "cat dog zebra": idf ln(1.6) twice (df 2), and "zebra" (df 0) ln(1 + 3.5 / 0.5) = ln(8).
    assert ranker.score_bound("cat dog zebra") == pytest.approx(
        2.2 * (2 * math.log(1.6) + math.log(8)), rel=1e-12)
    # No passage reaches it, and a passage repeating the query's terms approaches it.
    for query in ["the cat", "dog barks", "the the ran", "zebra"]:
        assert np.all(ranker.scores(query) < ranker.score_bound(query))
    long = Bm25Ranker(["cat " * 100000, "dog"], k1=1.2, b=0.0)
    assert long.scores("cat")[0] / long.score_bound("cat") == pytest.approx(1.0, abs=1e-4)
    assert ranker.score_bound("") == 0
