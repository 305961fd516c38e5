"""`EmbeddingCache`: one computation per document, keys that tell documents apart, LRU in
memory, and whole `.npy` files on disk that a new cache reads back."""

import os

import numpy as np
import pytest

from keras_bert.retrieval.embedding_cache import EmbeddingCache

pytestmark = pytest.mark.backend_portable


def counting(value):
    calls = []

    def compute():
        calls.append(1)
        return value

    return compute, calls


def test_computes_once_per_key():
    cache = EmbeddingCache()
    compute, calls = counting(np.ones((2, 3), "float32"))
    key = cache.key("model", ["a", "b"])
    for _ in range(3):
        np.testing.assert_array_equal(cache.get_or_compute(key, compute), np.ones((2, 3)))
    assert (len(calls), cache.hits, cache.misses) == (1, 2, 1)


def test_keys_differ_for_any_difference():
    key = EmbeddingCache.key
    assert key("m", ["a", "b"]) == key("m", ["a", "b"])
    assert len({key("m", ["a", "b"]), key("m", ["ab"]), key("m", ["a", "b", ""]),
                key("m", ["b", "a"]), key("n", ["a", "b"]), key("m", ["a", "bc"]),
                key("m", ["ab", "c"]), key("ma", ["b"])}) == 8


def test_least_recently_used_document_leaves_memory_first():
    cache = EmbeddingCache(max_documents=2)
    for name in ("a", "b"):
        cache.get_or_compute(name, lambda: np.zeros(1))
    cache.get_or_compute("a", lambda: np.zeros(1))  # "a" is now the most recent
    cache.get_or_compute("c", lambda: np.zeros(1))  # evicts "b"
    compute, calls = counting(np.zeros(1))
    cache.get_or_compute("a", compute)
    cache.get_or_compute("b", compute)
    assert len(calls) == 1


def test_directory_copies_outlive_the_cache(tmp_path):
    value = np.arange(6, dtype="float32").reshape(2, 3)
    EmbeddingCache(directory=tmp_path).get_or_compute("k" * 64, lambda: value)
    assert os.listdir(tmp_path) == ["k" * 64 + ".npy"]  # no temporary file left behind
    compute, calls = counting(None)
    again = EmbeddingCache(directory=tmp_path).get_or_compute("k" * 64, compute)
    np.testing.assert_array_equal(again, value)
    assert calls == []


def test_max_documents_must_be_positive():
    with pytest.raises(ValueError, match="max_documents=0"):
        EmbeddingCache(max_documents=0)
