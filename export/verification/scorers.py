"""Scorers `score(outputs) -> {metric: value}`: SQuAD v1.1 EM / F1 and classifier metrics."""

import keras_bert
import numpy as np


def squad_scorer(examples, features, dataset, n_best_size=20, max_answer_length=30,
                 do_lower_case=True):
    """`score(outputs)` for SQuAD v1.1: decodes answers and returns EM / F1 (percent)."""

    def score(outputs):
        predictions, _, _ = keras_bert.data.decode_squad_predictions(
            examples, features, outputs["start_logits"], outputs["end_logits"],
            n_best_size=n_best_size, max_answer_length=max_answer_length,
            do_lower_case=do_lower_case,
        )
        result = keras_bert.metrics.evaluate_squad_v1(dataset, predictions)
        return {"exact_match": result["exact_match"], "f1": result["f1"]}

    return score


def classification_scorer(label_ids, metrics=("accuracy", "f1")):
    """`score(outputs)` for a classifier: metrics of `argmax(logits)` against `label_ids`."""

    def score(outputs):
        predictions = np.asarray(outputs["logits"]).argmax(-1)
        return keras_bert.metrics.classification_metrics(label_ids, predictions, metrics)

    return score
