"""The official SQuAD v1.1 evaluation (`evaluate-v1.1.py`), written out from its published rules
as a test oracle: normalize (lower-case, drop `string.punctuation`, drop the words a/an/the,
collapse whitespace), exact match, token-overlap F1, the best over the gold answers, a missing
prediction scores 0 and counts, totals in percent. No code shared with `keras_bert.metrics`."""

import re
import string
from collections import Counter


def _normalize(s):
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def _f1(prediction, truth):
    p, t = _normalize(prediction).split(), _normalize(truth).split()
    same = sum((Counter(p) & Counter(t)).values())
    if same == 0:
        return 0
    precision, recall = 1.0 * same / len(p), 1.0 * same / len(t)
    return (2 * precision * recall) / (precision + recall)


def _em(prediction, truth):
    return _normalize(prediction) == _normalize(truth)


def evaluate(dataset, predictions):
    """`{"exact_match", "f1"}` as the script prints them (percent)."""
    f1 = exact_match = total = 0
    for article in dataset:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                total += 1
                if qa["id"] not in predictions:
                    continue
                truths = [a["text"] for a in qa["answers"]]
                prediction = predictions[qa["id"]]
                exact_match += max(_em(prediction, t) for t in truths)
                f1 += max(_f1(prediction, t) for t in truths)
    return {"exact_match": 100.0 * exact_match / total, "f1": 100.0 * f1 / total}
