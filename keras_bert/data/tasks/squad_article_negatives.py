"""Questions asked of paragraphs that do not answer them, from the same article (SQuAD 2.0 style).

A reader fine-tuned on SQuAD v1.1 has only seen windows that hold the answer (or are cut from the
paragraph that does), so its scores do not compare across the passages of a whole document and it
cannot say "no answer". Clark & Gardner (2018) fix the first by training on paragraphs of the same
document that lack the answer; SQuAD 2.0 trains the second with the target at `[CLS]`. This adds
both kinds of window to a v1.1 training set: each question is also asked of other paragraphs of
its own article that contain none of its gold answers, as an `is_impossible` question, so
`read_squad_examples(..., version_2_with_negative=True)` and `convert_squad_examples` give those
windows start and end 0, the `[CLS]` position.
"""

import copy
import random

from keras_bert.api_export import keras_bert_export


def _answers(qa):
    return [a["text"] for a in qa.get("answers", []) if a.get("text", "").strip()]


@keras_bert_export("keras_bert.data.with_article_negatives")
def with_article_negatives(dataset, per_question=1, seed=0, scorer=None):
    """`dataset` (a SQuAD v1.1 dict) with, for each answerable question, `per_question` more
    questions: the same text on another paragraph of its article that holds none of its gold
    answers (matched case-insensitively), marked `is_impossible`.

    The paragraphs are drawn at random (`seed`) among those that qualify, or, given `scorer`,
    the highest-scoring ones are taken: the hard negatives a retriever hands the reader at
    run time (Clark & Gardner sample theirs from a TF-IDF ranking). A question whose article
    has fewer qualifying paragraphs gets as many as there are. The added questions sit in
    their paragraph's `qas` after its own, with ids `<id>_neg<k>`. `dataset` is not changed.

    Args:
        dataset: dict, SQuAD v1.1 JSON (`{"data": [{"paragraphs": [{"context", "qas"}]}]}`).
        per_question: int >= 0, negatives per question.
        seed: int, the draw's seed (ties of `scorer` are broken at random too).
        scorer: optional function `(question, contexts) -> scores`: one number per context of
            the question's article (`contexts` is the same list object for every question of
            one article, so a scorer may build its index once per article), higher = more
            like the question, such as `keras_bert.retrieval.ArticleBm25Scorer()`.

    Returns:
        dict, a SQuAD v2.0-style dataset (`"version": "v2.0"`).

    Raises:
        ValueError: if `per_question` is negative.
    """
    if not isinstance(per_question, int) or per_question < 0:
        raise ValueError(f"per_question={per_question!r}: it must be a whole number >= 0.")
    rng = random.Random(seed)
    out = copy.deepcopy(dataset)
    out["version"] = "v2.0"
    for article in out["data"]:
        paragraphs = article["paragraphs"]
        originals = [p["context"] for p in paragraphs]
        contexts = [c.lower() for c in originals]
        added = [[] for _ in paragraphs]
        for p, paragraph in enumerate(paragraphs):
            for qa in paragraph["qas"]:
                if qa.get("is_impossible"):
                    continue
                answers = [a.lower() for a in _answers(qa)]
                others = [o for o in range(len(paragraphs))
                          if o != p and not any(a in contexts[o] for a in answers)]
                if scorer is None:
                    chosen = rng.sample(others, min(per_question, len(others)))
                else:
                    scores = scorer(qa["question"], originals)
                    if len(scores) != len(paragraphs):
                        raise ValueError(f"scorer gave {len(scores)} scores for "
                                         f"{len(paragraphs)} paragraphs: give one per context.")
                    rng.shuffle(others)  # ties in random order
                    others.sort(key=lambda o: -float(scores[o]))
                    chosen = others[:per_question]
                for k, o in enumerate(chosen):
                    added[o].append({"id": f"{qa['id']}_neg{k}", "question": qa["question"],
                                     "answers": [], "is_impossible": True})
        for paragraph, extra in zip(paragraphs, added):
            paragraph["qas"] = paragraph["qas"] + extra
    return out
