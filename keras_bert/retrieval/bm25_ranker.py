"""`Bm25Ranker`: Okapi BM25 over a fixed set of passages (lexical retrieval, NumPy)."""

import collections
import math
import re

import numpy as np

from keras_bert.api_export import keras_bert_export

_WORD = re.compile(r"\w+")


def word_tokens(text):
    """BM25's terms: the lower-cased runs of word characters (`\\w+`, Unicode), in order. No
    stemming and no stop words."""
    return _WORD.findall(text.lower())


@keras_bert_export("keras_bert.retrieval.Bm25Ranker")
class Bm25Ranker:
    """Ranks a fixed list of passages against a query with Okapi BM25.

    For a query of terms `q` (repeated terms count each time) and a passage `d`:

        score(d) = sum_q idf(q) * tf(q, d) * (k1 + 1) / (tf(q, d) + k1 * (1 - b + b * |d| / avgdl))
        idf(q)   = ln(1 + (N - df(q) + 0.5) / (df(q) + 0.5))

    `tf` is the term's count in the passage, `|d|` the passage's length in terms, `avgdl` the
    mean length over the `N` passages, `df` the number of passages holding the term. The idf is
    Lucene's (Lucene, Elasticsearch, Anserini): always positive, where Robertson's
    `ln((N - df + 0.5) / (df + 0.5))` turns negative for a term in more than half the
    passages, which within one document (a Wikipedia article's title words) is common.
    Terms are `word_tokens`: lower-cased `\\w+` runs.

    Args:
        passages: list of str (a `Passage`'s `.text`, or any text).
        k1: float, term-frequency saturation. Defaults to 1.2 (Robertson's).
        b: float, length normalization. Defaults to 0.75 (Robertson's).

    Example:
    >>> ranker = keras_bert.retrieval.Bm25Ranker(
    ...     ["The Rhine rises in the Swiss Alps.", "Paris is on the Seine.", "Alps and Alps."])
    >>> ranker.rank("Where does the Rhine rise?").tolist()
    [0, 1, 2]
    >>> round(float(ranker.scores("Seine")[1]), 4)
    0.9808
    """

    def __init__(self, passages, k1=1.2, b=0.75):
        if isinstance(passages, str):
            raise TypeError("`passages` is one str: pass a list of passages' texts.")
        if k1 < 0 or not 0 <= b <= 1:
            raise ValueError(f"k1={k1}, b={b}: BM25 needs k1 >= 0 and 0 <= b <= 1.")
        self.k1, self.b = float(k1), float(b)
        counts = [collections.Counter(word_tokens(text)) for text in passages]
        self.num_passages = len(counts)
        lengths = np.array([sum(c.values()) for c in counts], np.float64)
        average = lengths.mean() if self.num_passages and lengths.mean() > 0 else 1.0
        # The length part of the denominator, per passage: k1 * (1 - b + b * |d| / avgdl).
        self._length_norm = self.k1 * (1.0 - self.b + self.b * lengths / average)
        postings = collections.defaultdict(lambda: ([], []))
        for row, passage_counts in enumerate(counts):
            for term, tf in passage_counts.items():
                postings[term][0].append(row)
                postings[term][1].append(tf)
        self._postings = {term: (np.array(rows), np.array(tfs, np.float64))
                          for term, (rows, tfs) in postings.items()}

    def idf(self, term):
        """Lucene's BM25 idf of `term` (already a `word_tokens` term) over the passages."""
        df = len(self._postings[term][0]) if term in self._postings else 0
        return math.log(1.0 + (self.num_passages - df + 0.5) / (df + 0.5))

    def scores(self, query):
        """float64 `[num_passages]`: each passage's BM25 score for `query` (a str)."""
        scores = np.zeros(self.num_passages)
        for term in word_tokens(query):
            if term not in self._postings:
                continue  # tf = 0 everywhere: adds nothing
            rows, tf = self._postings[term]
            scores[rows] += self.idf(term) * tf * (self.k1 + 1.0) / (tf + self._length_norm[rows])
        return scores

    def score_bound(self, query):
        """The least upper bound of any passage's score for `query`: each term's
        `idf * (k1 + 1)` (its limit as `tf` grows), summed over the query's terms as `scores`
        counts them. `scores(query) / score_bound(query)` lies in [0, 1) and, unlike the raw
        score, compares across documents: a question about another document leaves most of
        its bound unmatched (terms the passages lack have the highest idf)."""
        return sum(self.idf(term) * (self.k1 + 1.0) for term in word_tokens(query))

    def rank(self, query, top_k=None):
        """Passage indices, best first (ties: the earlier passage first); the first `top_k`."""
        order = np.argsort(-self.scores(query), kind="stable")
        return order if top_k is None else order[:top_k]
