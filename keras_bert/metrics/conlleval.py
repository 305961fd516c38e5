"""Entity-level precision / recall / F1 exactly as the CoNLL shared tasks' `conlleval` script counts.

A chunk (entity) is correct only when its start, its end and its type all match. Chunk starts
and ends follow conlleval's `startOfChunk` / `endOfChunk` rules, so IOB1 (`I-` may open an
entity), IOB2 (`B-` opens every entity) and IOBES tags are all read as the script reads them.
Sentences are separated by an `O` boundary, as the script's blank lines are.
"""

import collections

from keras_bert.api_export import keras_bert_export


def _split(tag):
    """`B-ORG` -> `("B", "ORG")`, `O` -> `("O", "")`: split at the first "-", as the script does."""
    prefix, _, kind = tag.partition("-")
    return prefix, kind


def _end_of_chunk(prev_tag, tag, prev_type, kind):
    """conlleval's `endOfChunk` (with the IOBES additions of its Python port)."""
    if prev_tag in ("E", "S"):
        return True
    if prev_tag in ("B", "I") and tag in ("B", "S", "O"):
        return True
    return prev_tag not in ("O", ".") and prev_type != kind


def _start_of_chunk(prev_tag, tag, prev_type, kind):
    """conlleval's `startOfChunk` (with the IOBES additions of its Python port)."""
    if tag in ("B", "S"):
        return True
    if prev_tag in ("E", "S", "O") and tag in ("E", "I"):
        return True
    return tag not in ("O", ".") and prev_type != kind


@keras_bert_export("keras_bert.metrics.conlleval")
def conlleval(gold_sentences, predicted_sentences):
    """Scores predicted tag sequences against gold ones.

    Args:
        gold_sentences, predicted_sentences: lists of lists of tag strings (`O`, `B-PER`,
            `I-LOC`, ...), one list per sentence, of equal lengths.

    Returns:
        dict: `precision`, `recall`, `f1` (percent, over all entities), `accuracy` (percent of
        tokens), `tokens`, `found_gold`, `found_predicted`, `correct` (entity counts), and
        `per_type`: `{type: {"precision", "recall", "f1", "support" (gold entities),
        "found_predicted", "correct"}}`: every number conlleval prints.
    """
    if len(gold_sentences) != len(predicted_sentences):
        raise ValueError(
            f"{len(gold_sentences)} gold sentences but {len(predicted_sentences)} predicted."
        )
    correct, found_gold, found_pred = (collections.Counter() for _ in range(3))
    correct_tags = tokens = 0
    for index, (gold, pred) in enumerate(zip(gold_sentences, predicted_sentences)):
        if len(gold) != len(pred):
            raise ValueError(
                f"Sentence {index}: {len(gold)} gold tags but {len(pred)} predicted tags."
            )
        in_correct = False
        last_gold = last_pred = ("O", "")
        for g, p in list(zip(gold, pred)) + [("O", "O")]:  # the boundary closes open chunks
            gold_tag, pred_tag = _split(g), _split(p)
            gold_ends = _end_of_chunk(last_gold[0], gold_tag[0], last_gold[1], gold_tag[1])
            pred_ends = _end_of_chunk(last_pred[0], pred_tag[0], last_pred[1], pred_tag[1])
            if in_correct:
                if gold_ends and pred_ends and last_gold[1] == last_pred[1]:
                    in_correct = False
                    correct[last_gold[1]] += 1
                elif gold_ends != pred_ends or gold_tag[1] != pred_tag[1]:
                    in_correct = False
            gold_starts = _start_of_chunk(last_gold[0], gold_tag[0], last_gold[1], gold_tag[1])
            pred_starts = _start_of_chunk(last_pred[0], pred_tag[0], last_pred[1], pred_tag[1])
            if gold_starts and pred_starts and gold_tag[1] == pred_tag[1]:
                in_correct = True
            if gold_starts:
                found_gold[gold_tag[1]] += 1
            if pred_starts:
                found_pred[pred_tag[1]] += 1
            last_gold, last_pred = gold_tag, pred_tag
        for g, p in zip(gold, pred):
            correct_tags += g == p
            tokens += 1

    def prf(c, predicted, gold):
        precision = 100.0 * c / predicted if predicted else 0.0
        recall = 100.0 * c / gold if gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return precision, recall, f1

    precision, recall, f1 = prf(sum(correct.values()), sum(found_pred.values()),
                                sum(found_gold.values()))
    per_type = {}
    for kind in sorted(set(found_gold) | set(found_pred)):
        p, r, f = prf(correct[kind], found_pred[kind], found_gold[kind])
        per_type[kind] = {"precision": p, "recall": r, "f1": f, "support": found_gold[kind],
                          "found_predicted": found_pred[kind], "correct": correct[kind]}
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "accuracy": 100.0 * correct_tags / tokens if tokens else 0.0,
        "tokens": tokens,
        "found_gold": sum(found_gold.values()),
        "found_predicted": sum(found_pred.values()),
        "correct": sum(correct.values()),
        "per_type": per_type,
    }
