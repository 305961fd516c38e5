"""Which kind of fine-tuned model is being exported: the kind of its `keras_bert.tasks` task."""

import keras_bert

QUESTION_ANSWERING = "question_answering"
CLASSIFICATION = "classification"
TOKEN_CLASSIFICATION = "token_classification"


def task_kind(model):
    """`"question_answering"`, `"classification"` or `"token_classification"` for `model`.

    Raises:
        TypeError: `model` is not a fine-tuned keras_bert task model.
    """
    try:
        return keras_bert.tasks.task_for_model(model).kind
    except TypeError:
        raise TypeError(
            f"Cannot export a {type(model).__name__}: the exporter knows the fine-tuned models "
            "BertQuestionAnswerer, BertTokenClassifier, BertClassifier. Wrap an encoder in one "
            "of them (and load its fine-tuned checkpoint) first."
        ) from None
