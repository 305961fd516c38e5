"""The official SQuAD v2.0 evaluation (`evaluate-v2.0.py`), written out from its published rules
as a test oracle: gold answers that normalize to "" dropped (none left: the empty answer is
expected), F1 of two empty answers 1, the no-answer threshold, HasAns/NoAns splits and the best
threshold search. No code shared with `keras_bert.metrics`."""

import collections
import re
import string


def _normalize(s):
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.compile(r"\b(a|an|the)\b", re.UNICODE).sub(" ", s)
    return " ".join(s.split())


def _tokens(s):
    return _normalize(s).split() if s else []


def _exact(gold, pred):
    return int(_normalize(gold) == _normalize(pred))


def _f1(gold, pred):
    gold_toks, pred_toks = _tokens(gold), _tokens(pred)
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return int(gold_toks == pred_toks)
    if same == 0:
        return 0
    precision, recall = 1.0 * same / len(pred_toks), 1.0 * same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


def _eval_dict(exact, f1, qids=None):
    qids = list(exact) if not qids else qids
    return {"exact": 100.0 * sum(exact[k] for k in qids) / len(qids),
            "f1": 100.0 * sum(f1[k] for k in qids) / len(qids), "total": len(qids)}


def _best_thresh(preds, scores, na_probs, has_ans):
    score = best = sum(1 for k in has_ans if not has_ans[k])
    thresh = 0.0
    for qid in sorted(na_probs, key=lambda k: na_probs[k]):
        if qid not in scores:
            continue
        if has_ans[qid]:
            diff = scores[qid]
        else:
            diff = -1 if preds[qid] else 0
        score += diff
        if score > best:
            best, thresh = score, na_probs[qid]
    return 100.0 * best / len(scores), thresh


def evaluate(dataset, preds, na_probs=None, na_prob_thresh=1.0):
    """The script's printed dict (`na_probs` given: with the best thresholds)."""
    use_file = na_probs is not None
    na_probs = na_probs if use_file else {k: 0.0 for k in preds}
    has_ans, exact, f1 = {}, {}, {}
    for article in dataset:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                qid = qa["id"]
                has_ans[qid] = bool(qa["answers"])
                golds = [a["text"] for a in qa["answers"] if _normalize(a["text"])] or [""]
                if qid not in preds:
                    continue
                exact[qid] = max(_exact(g, preds[qid]) for g in golds)
                f1[qid] = max(_f1(g, preds[qid]) for g in golds)

    def threshold(scores):
        return {k: float(not has_ans[k]) if na_probs[k] > na_prob_thresh else s
                for k, s in scores.items()}

    exact_t, f1_t = threshold(exact), threshold(f1)
    out = _eval_dict(exact_t, f1_t)
    for prefix, wanted in (("HasAns", True), ("NoAns", False)):
        qids = [k for k, v in has_ans.items() if v == wanted]
        if qids:
            out.update({f"{prefix}_{k}": v for k, v in _eval_dict(exact_t, f1_t, qids).items()})
    if use_file:
        out["best_exact"], out["best_exact_thresh"] = _best_thresh(preds, exact, na_probs, has_ans)
        out["best_f1"], out["best_f1_thresh"] = _best_thresh(preds, f1, na_probs, has_ans)
    return out
