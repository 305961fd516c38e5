"""`reciprocal_rank_fusion`: one ranking from several (Cormack, Clarke and Buettcher 2009)."""

import numpy as np

from keras_bert.api_export import keras_bert_export

RRF_K = 60


@keras_bert_export("keras_bert.retrieval.reciprocal_rank_fusion")
def reciprocal_rank_fusion(*orders, k=RRF_K):
    """Items ordered by the sum over `orders` of `1 / (k + rank)` (ranks 1-based); ties: the
    earlier item first. Each order is a full ranking of the same items (indices, best first).

    Example:
    >>> keras_bert.retrieval.reciprocal_rank_fusion([0, 1, 2], [1, 2, 0]).tolist()
    [1, 0, 2]
    """
    scores = np.zeros(len(orders[0]))
    for order in orders:
        scores[np.asarray(order)] += 1.0 / (k + np.arange(1, len(order) + 1))
    return np.argsort(-scores, kind="stable")
