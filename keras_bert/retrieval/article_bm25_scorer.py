"""`ArticleBm25Scorer`: BM25 scores of a question against its article's paragraphs, one index per article."""

from keras_bert.api_export import keras_bert_export
from keras_bert.retrieval.bm25_ranker import Bm25Ranker


@keras_bert_export("keras_bert.retrieval.ArticleBm25Scorer")
class ArticleBm25Scorer:
    """A `scorer` for `keras_bert.data.with_article_negatives`: picks, as a question's negative
    paragraphs, those BM25 ranks highest, the hard negatives a BM25 retriever hands the reader
    at run time. The index is built once per article (per `contexts` list object) and reused
    for every question of it.

    Args:
        k1, b: `Bm25Ranker`'s.

    Example:
    >>> scorer = keras_bert.retrieval.ArticleBm25Scorer()
    >>> [round(float(s), 3) for s in scorer("Where is the Rhine?", ["The Rhine.", "Paris."])]
    [1.22, 0.0]
    """

    def __init__(self, k1=1.2, b=0.75):
        self.k1, self.b = k1, b
        self._contexts = None
        self._ranker = None

    def __call__(self, question, contexts):
        """float64 `[len(contexts)]`: BM25 of `question` against each context."""
        if contexts is not self._contexts:
            self._contexts = contexts
            self._ranker = Bm25Ranker(contexts, self.k1, self.b)
        return self._ranker.scores(question)
