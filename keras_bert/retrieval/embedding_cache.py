"""`EmbeddingCache`: a document's passage embeddings, computed once and kept by content hash."""

import collections
import hashlib
import os

import numpy as np

from keras_bert.api_export import keras_bert_export
from keras_bert.atomic_files import atomic_open


@keras_bert_export("keras_bert.retrieval.EmbeddingCache")
class EmbeddingCache:
    """Passage embeddings keyed by the SHA-256 of the model's identity and the passages' texts.

    The same passages embedded by the same model give the same key, so a document asked about
    again costs one lookup instead of one embedder call per passage. The newest `max_documents`
    live in memory (least recently used out first); with a `directory` each is also written
    there as `<key>.npy` (whole or not at all) and read back by a later process.

    Args:
        max_documents: int, how many documents' embeddings to keep in memory. Defaults to 64.
        directory: optional str, a folder for `.npy` copies that outlive the process.

    Example:
    >>> cache = keras_bert.retrieval.EmbeddingCache()
    >>> key = cache.key("model-sha256", ["First passage.", "Second passage."])
    >>> calls = []
    >>> compute = lambda: calls.append(1) or np.eye(2, dtype="float32")
    >>> cache.get_or_compute(key, compute).shape, cache.get_or_compute(key, compute).shape
    ((2, 2), (2, 2))
    >>> len(calls)
    1
    """

    def __init__(self, max_documents=64, directory=None):
        if max_documents < 1:
            raise ValueError(f"max_documents={max_documents}: keep at least one document.")
        self.max_documents = max_documents
        self.directory = os.fspath(directory) if directory is not None else None
        self._entries = collections.OrderedDict()
        self.hits = self.misses = 0

    @staticmethod
    def key(model_id, texts):
        """The hex SHA-256 of `model_id` (str) and the passages' `texts` (list of str), each
        length-prefixed so that no two different lists share a key."""
        digest = hashlib.sha256()
        for part in [model_id, *texts]:
            data = part.encode("utf-8")
            digest.update(len(data).to_bytes(8, "little"))
            digest.update(data)
        return digest.hexdigest()

    def get_or_compute(self, key, compute):
        """The array stored under `key`, else `compute()` (stored, then returned)."""
        if key in self._entries:
            self._entries.move_to_end(key)
            self.hits += 1
            return self._entries[key]
        path = os.path.join(self.directory, f"{key}.npy") if self.directory else None
        if path and os.path.exists(path):
            value = np.load(path)
            self.hits += 1
        else:
            value = np.asarray(compute())
            self.misses += 1
            if path:
                os.makedirs(self.directory, exist_ok=True)
                with atomic_open(path, "wb") as f:
                    np.save(f, value)
        self._entries[key] = value
        if len(self._entries) > self.max_documents:
            self._entries.popitem(last=False)
        return value
