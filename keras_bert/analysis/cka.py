"""Linear centered kernel alignment (CKA) between two sets of representations of the same inputs."""

import numpy as np

from keras_bert.api_export import keras_bert_export


@keras_bert_export("keras_bert.analysis.linear_cka")
def linear_cka(x, y):
    """Linear CKA (Kornblith et al. 2019) of `x` `[n, d1]` and `y` `[n, d2]`: rows are the same n
    examples (e.g. token positions) represented two ways.

    `CKA = ||Yc^T Xc||_F^2 / (||Xc^T Xc||_F ||Yc^T Yc||_F)` with column-centred `Xc`, `Yc`: 1 when
    one representation is an orthogonal transform and isotropic scaling of the other, near 0
    for unrelated ones, and comparable across layers of different widths. Computed in float64.

    Example:
    >>> x = np.random.default_rng(0).normal(size=(50, 8))
    >>> round(keras_bert.analysis.linear_cka(x, 3.0 * x), 6)
    1.0
    """
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    if x.ndim != 2 or y.ndim != 2 or x.shape[0] != y.shape[0]:
        raise ValueError(
            f"linear_cka needs two [n, d] arrays with the same n (rows = the same examples); "
            f"got shapes {x.shape} and {y.shape}."
        )
    x = x - x.mean(axis=0)
    y = y - y.mean(axis=0)
    cross = np.linalg.norm(y.T @ x) ** 2
    norms = np.linalg.norm(x.T @ x) * np.linalg.norm(y.T @ y)
    if norms == 0.0:
        raise ValueError("linear_cka: a representation is constant over the examples.")
    return float(cross / norms)
