"""`DenseRanker`: cosine ranking with a stand-in embedder whose vectors are known, passages
embedded once per document through the cache."""

import numpy as np
import pytest

from keras_bert.retrieval.dense_ranker import DenseRanker
from keras_bert.retrieval.embedding_cache import EmbeddingCache

pytestmark = pytest.mark.backend_portable

# Vectors not of unit length: the ranker must compare directions, not sizes.
VECTORS = {"north": [0.0, 3.0], "east": [2.0, 0.0], "north-east": [5.0, 5.0],
           "mostly north": [1.0, 4.0], "question": [0.1, 1.0]}


class Embedder:
    model_id = "stand-in"

    def __init__(self):
        self.calls = []

    def __call__(self, texts):
        self.calls.append(list(texts))
        return np.array([VECTORS[t] for t in texts], "float32")


def test_ranks_by_cosine():
    ranker = DenseRanker(Embedder(), ["east", "north-east", "north", "mostly north"])
    q = np.array(VECTORS["question"]) / np.linalg.norm(VECTORS["question"])
    expected = [np.dot(q, np.array(VECTORS[t]) / np.linalg.norm(VECTORS[t]))
                for t in ["east", "north-east", "north", "mostly north"]]
    np.testing.assert_allclose(ranker.scores("question"), expected, rtol=1e-6)
    assert ranker.rank("question").tolist() == [2, 3, 1, 0]
    assert ranker.rank("question", top_k=2).tolist() == [2, 3]


def test_passages_are_embedded_once_per_document():
    embedder, cache = Embedder(), EmbeddingCache()
    passages = ["east", "north"]
    DenseRanker(embedder, passages, cache)
    ranker = DenseRanker(embedder, list(passages), cache)  # the same document again
    ranker.rank("question")
    embedding = ranker.question_embedding("question")
    ranker.rank("question", question_embedding=embedding)  # no embedder call
    assert embedder.calls == [["east", "north"], ["question"], ["question"]]
    DenseRanker(embedder, ["north", "east"], cache)  # another document: embedded
    assert embedder.calls[-1] == ["north", "east"]


def test_errors_are_clear():
    with pytest.raises(ValueError, match="returned shape"):
        DenseRanker(lambda texts: np.zeros((1, 2)), ["east", "north"])
    anonymous = lambda texts: np.ones((len(texts), 2))  # noqa: E731
    with pytest.raises(ValueError, match="needs an embedder with a `model_id`"):
        DenseRanker(anonymous, ["a"], EmbeddingCache(directory="/tmp/unused"))
    with pytest.raises(TypeError, match="one str"):
        DenseRanker(anonymous, "a document")
    assert DenseRanker(anonymous, []).rank("q").tolist() == []
