"""`AnswerCalibrator`: a reader's span over one passage -> the probability it answers the question."""

import json
import math

import numpy as np

from keras_bert.api_export import keras_bert_export

# Every feature a calibrator may use, each a number the reader and the rankers give for one
# candidate span of one passage. A calibrator names the ones it uses (its `features`), in order.
FEATURES = (
    "span_logit",     # start_logit + end_logit: what today's merge compares across passages
    "span_log_prob",  # log softmax of start and end over the passage's tokens, summed
    "null_gap",       # span_logit - ([CLS] start logit + [CLS] end logit)
    "cosine",         # the embedder's cosine of question and passage (needs the embedder)
    "bm25_match",     # BM25 score / Bm25Ranker.score_bound(question): share of the query matched
    "inverse_rank",   # 1 / the passage's rank among those the reader read (1 = the best ranked)
)


def span_features(start_logit, end_logit, cls_logits, lse, cosine=None, bm25_match=None,
                  rank=1):
    """`{name: value}` of `FEATURES` for one span.

    Args:
        start_logit, end_logit: float, the span's logits.
        cls_logits: `(start, end)` logits at `[CLS]`, position 0 of the passage's window.
        lse: `(start, end)` log-sum-exp of the window's start and end logits over the
            passage's tokens (segment 1, the closing `[SEP]` left out).
        cosine, bm25_match: float or None (a feature the caller cannot give).
        rank: int, the passage's 1-based rank among the passages read.
    """
    span_logit = start_logit + end_logit
    return {"span_logit": span_logit,
            "span_log_prob": (start_logit - lse[0]) + (end_logit - lse[1]),
            "null_gap": span_logit - (cls_logits[0] + cls_logits[1]),
            "cosine": cosine, "bm25_match": bm25_match, "inverse_rank": 1.0 / rank}


def logsumexp(values):
    """log(sum(exp(values))), computed stably; float."""
    values = np.asarray(values, np.float64)
    top = float(values.max())
    return top + math.log(float(np.exp(values - top).sum()))


def window_statistics(start_logits, end_logits, segment_ids):
    """`(cls_logits, lse)` of one reader window, for `span_features`: the start and end logits
    at `[CLS]`, and their log-sum-exp over the passage's tokens (segment 1 without the closing
    `[SEP]`). Each argument: `[seq_len]` numbers of the window."""
    context = np.asarray(segment_ids) == 1  # [seq_len]: the passage's tokens and its [SEP]
    positions = np.flatnonzero(context)
    if len(positions) == 0:
        raise ValueError("The window has no passage tokens (segment 1).")
    context[positions[-1]] = False  # the closing [SEP]
    start_logits, end_logits = np.asarray(start_logits), np.asarray(end_logits)
    return ((float(start_logits[0]), float(end_logits[0])),
            (logsumexp(start_logits[context]), logsumexp(end_logits[context])))


@keras_bert_export("keras_bert.retrieval.AnswerCalibrator")
class AnswerCalibrator:
    """Logistic regression from a candidate span's features to the probability it is right.

    Start and end logits of an extractive reader trained on SQuAD v1.1, which always held an
    answer, neither compare across passages nor say when no passage answers (Clark & Gardner
    2018). This calibrator is fitted on a training set's questions asked against the passages a
    retriever gives them from their own article (target: the span's SQuAD F1 against the gold
    answers, a number in [0, 1]) and from another article (target 0), so its output is an
    estimate of the span's expected F1 that does compare: the answer is the candidate with the
    highest, and below `threshold` the pipeline says there is no answer.

    `p = sigmoid(bias + sum(weights[i] * features[i]))`, the features named by `features`
    (see `FEATURES`). The fitted numbers live in a small JSON file that the Python pipeline,
    the web app and the Android app all read, so the three answer alike.

    Args:
        weights: list of float, one per feature.
        bias: float.
        features: tuple of names from `FEATURES`.
        threshold: float in [0, 1]: abstain when the best candidate's probability is lower.
        info: dict, anything worth keeping beside the numbers (how they were fitted).

    Example:
    >>> c = keras_bert.retrieval.AnswerCalibrator([1.0, 2.0], -3.0, ("span_logit", "bm25_match"))
    >>> round(c.probability({"span_logit": 2.0, "bm25_match": 0.5}), 4)
    0.5
    """

    def __init__(self, weights, bias, features, threshold=0.5, info=None):
        features = tuple(features)
        unknown = [f for f in features if f not in FEATURES]
        if unknown:
            raise ValueError(f"Unknown calibrator features {unknown}: choose from {FEATURES}.")
        if len(weights) != len(features):
            raise ValueError(f"{len(weights)} weights for {len(features)} features.")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold={threshold}: a probability, in [0, 1].")
        self.weights = np.asarray(weights, np.float64)
        self.bias = float(bias)
        self.features = features
        self.threshold = float(threshold)
        self.info = dict(info or {})

    def matrix(self, rows):
        """float64 `[len(rows), len(features)]` from dicts of features (`span_features`)."""
        out = np.empty((len(rows), len(self.features)))
        for i, row in enumerate(rows):
            for j, name in enumerate(self.features):
                value = row.get(name)
                if value is None:
                    raise ValueError(f"The calibrator needs the feature {name!r}, which this "
                                     f"candidate lacks (for 'cosine', give the pipeline an "
                                     "embedder).")
                out[i, j] = value
        return out

    def probability(self, features):
        """The probability for one dict of features (float), or for a list of them (array)."""
        if isinstance(features, dict):
            return float(self.probability([features])[0])
        logits = self.matrix(features) @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-logits))

    @classmethod
    def fit(cls, rows, targets, features, l2=1e-3, threshold=0.5, info=None, iterations=50):
        """Fits by Newton's method on the cross-entropy with soft `targets` (in [0, 1]) plus
        `l2` times the squared weights (on standardized features; the bias is free).

        Args:
            rows: list of dicts of features (`span_features`).
            targets: floats in [0, 1], one per row.
            features: the names to use, from `FEATURES`.
        """
        probe = cls(np.zeros(len(features)), 0.0, features)
        x = probe.matrix(rows)  # [n, f]
        y = np.asarray(targets, np.float64)
        if len(x) == 0 or len(x) != len(y):
            raise ValueError(f"{len(x)} rows and {len(y)} targets: need as many, at least one.")
        if y.min() < 0 or y.max() > 1:
            raise ValueError("Targets are probabilities: each in [0, 1].")
        mean, std = x.mean(axis=0), x.std(axis=0)
        std[std == 0] = 1.0
        z = np.hstack([np.ones((len(x), 1)), (x - mean) / std])  # [n, 1 + f]
        w = np.zeros(z.shape[1])
        penalty = np.full(z.shape[1], l2 * len(x))
        penalty[0] = 0.0
        for _ in range(iterations):
            p = 1.0 / (1.0 + np.exp(-(z @ w)))
            gradient = z.T @ (p - y) + penalty * w
            hessian = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty) + 1e-9 * np.eye(len(w))
            step = np.linalg.solve(hessian, gradient)
            w -= step
            if np.abs(step).max() < 1e-10:
                break
        weights = w[1:] / std  # back to the features' own units
        bias = w[0] - float(weights @ mean)
        return cls(weights.tolist(), bias, features, threshold, info)

    def to_dict(self):
        return {"features": list(self.features), "weights": self.weights.tolist(),
                "bias": self.bias, "threshold": self.threshold, "info": self.info}

    @classmethod
    def from_dict(cls, config):
        return cls(config["weights"], config["bias"], config["features"],
                   config.get("threshold", 0.5), config.get("info"))

    def save(self, path):
        """Writes the JSON file (under a temporary name, renamed when complete)."""
        from keras_bert.atomic_files import atomic_open

        with atomic_open(path, "w") as f:
            json.dump(self.to_dict(), f, indent=1)
            f.write("\n")

    @classmethod
    def load(cls, path):
        """The calibrator of a JSON file `save` wrote (apps/models/answer_calibrator.json).
        A `SHA256SUMS` beside it, as apps/models has, must list its digest."""
        from keras_bert.integrity import verify_file

        verify_file(path)
        try:
            with open(path, encoding="utf-8") as f:
                config = json.load(f)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path} is not a calibrator's JSON ({error.msg} at line "
                             f"{error.lineno}): use the file AnswerCalibrator.save wrote.") from None
        missing = [k for k in ("features", "weights", "bias") if k not in config]
        if missing:
            raise ValueError(f"{path} lacks {missing}: use the file AnswerCalibrator.save wrote.")
        return cls.from_dict(config)


def choose_threshold(answerable, max_wrong_abstention=0.04):
    """The highest threshold at which at most `max_wrong_abstention` of the `answerable`
    questions' best-candidate probabilities fall below it: the most abstention on questions
    without an answer that this allows. Chosen on training questions, never on dev."""
    answerable = np.sort(np.asarray(answerable, np.float64))
    allowed = int(math.floor(max_wrong_abstention * len(answerable)))
    # Abstaining below answerable[allowed] abstains on exactly `allowed` of them (ties aside).
    return float(answerable[min(allowed, len(answerable) - 1)])
