"""SQuAD scoring with the official v1.1 and v2.0 evaluation scripts' rules (EM and F1).

Both official scripts normalize an answer the same way: lower-case, drop ASCII punctuation, drop
the articles a/an/the, collapse whitespace. Then, per question, the best score over the gold
answers counts. They differ in three places, kept here:
- v1.1: a question with no prediction scores 0 (and is counted); F1 with no common token is
  0 even when both sides are empty.
- v2.0: gold answers that normalize to "" are dropped, and a question left with none expects
  the empty answer; F1 is 1 when prediction and gold are both empty (0 if only one is); a
  `na_probs` dict (our `null_odds.json`) with a threshold turns predictions into abstentions,
  and the best threshold is searched; results are split into HasAns / NoAns.
"""

import collections
import gzip
import json
import os
import re
import string

from keras_bert.api_export import keras_bert_export

_PUNCTUATION = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)


@keras_bert_export("keras_bert.metrics.normalize_answer")
def normalize_answer(text):
    """Lower-case, remove punctuation, articles and extra whitespace (the official rule)."""
    text = text.lower()
    text = "".join(char for char in text if char not in _PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match(prediction, gold):
    """1 if the normalized answers are equal, else 0."""
    return int(normalize_answer(prediction) == normalize_answer(gold))


def f1_v1(prediction, gold):
    """Token-overlap F1 of the v1.1 script (0 when nothing is shared, even two empty answers)."""
    pred_tokens = normalize_answer(prediction).split()
    gold_tokens = normalize_answer(gold).split()
    same = sum((collections.Counter(pred_tokens) & collections.Counter(gold_tokens)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred_tokens), same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def f1_v2(prediction, gold):
    """Token-overlap F1 of the v2.0 script: two empty answers agree (1), one empty is 0."""
    if not normalize_answer(prediction) and not normalize_answer(gold):
        return 1.0  # one empty answer shares no token with the other: f1_v1's 0
    return f1_v1(prediction, gold)


def _questions(dataset):
    for article in dataset["data"]:
        for paragraph in article["paragraphs"]:
            yield from paragraph["qas"]


@keras_bert_export("keras_bert.metrics.evaluate_squad_v1")
def evaluate_squad_v1(dataset, predictions):
    """The v1.1 script's `evaluate`: `{"exact_match", "f1"}` in percent over all questions.

    Args:
        dataset: the parsed SQuAD JSON (`{"data": [...]}`).
        predictions: `{qas_id: answer text}`; missing ids score 0 (and are counted in
            `"missing"`).
    """
    em = f1 = total = missing = 0
    for qa in _questions(dataset):
        total += 1
        if qa["id"] not in predictions:
            missing += 1
            continue
        golds = [answer["text"] for answer in qa["answers"]]
        prediction = predictions[qa["id"]]
        em += max(exact_match(prediction, gold) for gold in golds)
        f1 += max(f1_v1(prediction, gold) for gold in golds)
    return {
        "exact_match": 100.0 * em / total,
        "f1": 100.0 * f1 / total,
        "total": total,
        "missing": missing,
    }


def _best_threshold(predictions, scores, na_probs, has_answer):
    """The v2.0 script's `find_best_thresh`: abstain above the threshold that scores best.

    Questions are taken in increasing `na_probs` order, ties in the order of `na_probs` itself
    (the script sorts that dict's keys), so the result is the script's also when probabilities
    tie (the running score can peak inside a run of ties)."""
    score = best = sum(1 for qid in scores if not has_answer[qid])
    threshold = 0.0
    for qid in sorted(na_probs, key=lambda q: na_probs[q]):
        if qid not in scores:
            continue
        if has_answer[qid]:
            score += scores[qid]
        else:
            score += -1 if predictions[qid] else 0
        if score > best:
            best, threshold = score, na_probs[qid]
    return 100.0 * best / len(scores), threshold


@keras_bert_export("keras_bert.metrics.evaluate_squad_v2")
def evaluate_squad_v2(dataset, predictions, na_probs=None, na_prob_thresh=1.0):
    """The v2.0 script: `exact`, `f1`, `total`, `HasAns_*`, `NoAns_*` (percent), and, given
    `na_probs` (`{qas_id: no-answer score}`, e.g. our `null_odds.json`), `best_exact`,
    `best_exact_thresh`, `best_f1`, `best_f1_thresh`.

    A question without a prediction is an error (the official script cannot score it either).
    """
    questions = list(_questions(dataset))
    missing = [qa["id"] for qa in questions if qa["id"] not in predictions]
    if missing:
        raise ValueError(
            f"{len(missing)} of {len(questions)} questions have no prediction (e.g. "
            f"{missing[:3]}); SQuAD v2.0 scoring needs one per question ('' for no answer)."
        )
    has_answer, exact, f1 = {}, {}, {}
    for qa in questions:
        qid = qa["id"]
        golds = [a["text"] for a in qa["answers"] if normalize_answer(a["text"])] or [""]
        has_answer[qid] = bool(qa["answers"])
        exact[qid] = max(exact_match(predictions[qid], gold) for gold in golds)
        f1[qid] = max(f1_v2(predictions[qid], gold) for gold in golds)
    probs = na_probs or {qid: 0.0 for qid in exact}

    def thresholded(scores):
        return {
            qid: float(not has_answer[qid]) if probs[qid] > na_prob_thresh else score
            for qid, score in scores.items()
        }

    exact_t, f1_t = thresholded(exact), thresholded(f1)
    results = _summary(exact_t, f1_t, list(exact))
    for prefix, wanted in (("HasAns_", True), ("NoAns_", False)):
        qids = [qid for qid in exact if has_answer[qid] == wanted]
        if qids:
            results.update({prefix + k: v for k, v in _summary(exact_t, f1_t, qids).items()})
    if na_probs is not None:
        results["best_exact"], results["best_exact_thresh"] = _best_threshold(
            predictions, exact, probs, has_answer
        )
        results["best_f1"], results["best_f1_thresh"] = _best_threshold(
            predictions, f1, probs, has_answer
        )
    return results


def _summary(exact, f1, qids):
    return {
        "exact": 100.0 * sum(exact[q] for q in qids) / len(qids),
        "f1": 100.0 * sum(f1[q] for q in qids) / len(qids),
        "total": len(qids),
    }


@keras_bert_export("keras_bert.metrics.evaluate_squad_file")
def evaluate_squad_file(path, predictions, na_probs=None, version_2_with_negative=False):
    """Scores `predictions` against the SQuAD file at `path` (`.json` or `.json.gz`).

    Returns the v1.1 or v2.0 results, or `None` when the file has no gold answers (a test
    set), so nothing is reported as a score that is not one.
    """
    path = os.fspath(path)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        dataset = json.load(f)
    questions = list(_questions(dataset))
    if not any(qa.get("answers") for qa in questions):
        return None
    if version_2_with_negative:
        return evaluate_squad_v2(dataset, predictions, na_probs)
    return evaluate_squad_v1(dataset, predictions)
