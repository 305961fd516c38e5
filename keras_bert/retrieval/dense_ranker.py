"""`DenseRanker`: passages ranked by the cosine of their embeddings to the question's."""

import numpy as np

from keras_bert.api_export import keras_bert_export
from keras_bert.retrieval.embedding_cache import EmbeddingCache


@keras_bert_export("keras_bert.retrieval.DenseRanker")
class DenseRanker:
    """Ranks a fixed list of passages against questions by embedding cosine.

    The passages are embedded once, when the ranker is made, through `cache` (so a document
    seen before is not embedded again); each question is one more embedder call. Embeddings
    are scaled to unit length (a no-op for `BertSentenceEmbedder`'s, normalized in its graph),
    so the cosine is a dot product.

    Args:
        embedder: a callable from a list of str to float `[n, hidden]` unit rows, such as
            `TfliteEmbedder`. Its `model_id` attribute (a str naming the weights, e.g. the
            file's SHA-256), if any, goes into the cache key.
        passages: list of str.
        cache: an `EmbeddingCache`; default: a new one (memory only, this ranker alone).

    Example:
    >>> table = {"cats purr": [1.0, 0.0], "dogs bark": [0.0, 1.0], "a kitten": [0.8, 0.6]}
    >>> embed = lambda texts: np.array([table[t] for t in texts], "float32")
    >>> ranker = keras_bert.retrieval.DenseRanker(embed, ["dogs bark", "cats purr"])
    >>> ranker.rank("a kitten").tolist(), ranker.scores("a kitten").astype(float).round(2).tolist()
    ([1, 0], [0.6, 0.8])
    """

    def __init__(self, embedder, passages, cache=None):
        if isinstance(passages, str):
            raise TypeError("`passages` is one str: pass a list of passages' texts.")
        self.embedder = embedder
        self.cache = cache if cache is not None else EmbeddingCache()
        passages = list(passages)
        model_id = getattr(embedder, "model_id", None)
        if model_id is None:
            if self.cache.directory is not None:
                raise ValueError("An EmbeddingCache with a directory needs an embedder with a "
                                 "`model_id` (a name of its weights): give the embedder one.")
            model_id = f"{type(embedder).__qualname__}@{id(embedder)}"
        key = EmbeddingCache.key(model_id, passages)
        self.passage_embeddings = self.cache.get_or_compute(
            key, lambda: self._embed(passages, len(passages)))  # [P, H]

    def _embed(self, texts, count):
        if count == 0:
            return np.zeros((0, 0), np.float32)
        embeddings = np.asarray(self.embedder(texts), np.float32)
        if embeddings.ndim != 2 or len(embeddings) != count:
            raise ValueError(f"The embedder returned shape {embeddings.shape} for {count} "
                             "texts; expected [num_texts, hidden].")
        norms = np.linalg.norm(embeddings, axis=1, keepdims=True)  # [n, 1]
        return embeddings / np.maximum(norms, 1e-12)  # [n, H], unit rows

    def question_embedding(self, question):
        """The question's embedding, float32 `[hidden]`."""
        return self._embed([question], 1)[0]

    def scores(self, question, question_embedding=None):
        """float32 `[num_passages]`: each passage's cosine to `question` (or to a
        `question_embedding` computed before, which skips the embedder call)."""
        if len(self.passage_embeddings) == 0:
            return np.zeros(0, np.float32)
        if question_embedding is None:
            question_embedding = self.question_embedding(question)
        return self.passage_embeddings @ np.asarray(question_embedding, np.float32)  # [P]

    def rank(self, question, top_k=None, question_embedding=None):
        """Passage indices, best first (ties: the earlier passage first); the first `top_k`."""
        order = np.argsort(-self.scores(question, question_embedding), kind="stable")
        return order if top_k is None else order[:top_k]
