"""keras_bert.tasks: one module per fine-tuning task (files, encoding, model, loss, decoding, scoring)."""

from keras_bert.lazy_package import lazy_exports

lazy_exports(
    globals(),
    symbols={
        "QuestionAnsweringTask": "keras_bert.tasks.question_answering",
        "get_task": "keras_bert.tasks.registry",
        "task_for_model": "keras_bert.tasks.registry",
        "task_names": "keras_bert.tasks.registry",
        "SentenceClassificationTask": "keras_bert.tasks.sentence_classification",
        "Task": "keras_bert.tasks.task",
        "TaskData": "keras_bert.tasks.task",
        "TokenClassificationTask": "keras_bert.tasks.token_classification",
    },
    submodules=(),
    tensorflow_symbols={},
)
