"""Which kind of fine-tuned model is being exported (the exporter's only model dispatch)."""

import keras_bert

QUESTION_ANSWERING = "question_answering"
CLASSIFICATION = "classification"
TOKEN_CLASSIFICATION = "token_classification"

_KINDS = (
    (keras_bert.BertQuestionAnswerer, QUESTION_ANSWERING),
    (keras_bert.BertTokenClassifier, TOKEN_CLASSIFICATION),
    (keras_bert.BertClassifier, CLASSIFICATION),
)


def task_kind(model):
    """`"question_answering"`, `"classification"` or `"token_classification"` for `model`.

    Raises:
        TypeError: `model` is not a fine-tuned keras_bert task model.
    """
    for cls, kind in _KINDS:
        if isinstance(model, cls):
            return kind
    known = ", ".join(cls.__name__ for cls, _ in _KINDS)
    raise TypeError(
        f"Cannot export a {type(model).__name__}: the exporter knows the fine-tuned models "
        f"{known}. Wrap an encoder in one of them (and load its fine-tuned checkpoint) first."
    )
