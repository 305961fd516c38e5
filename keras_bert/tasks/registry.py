"""The tasks by name (`--task_name`) and by model: the one place that maps either to a task."""

from keras_bert.api_export import keras_bert_export


def _glue(name):
    def make(**options):
        from keras_bert.data.tasks.classification_data import GLUE_TASKS
        from keras_bert.tasks.sentence_classification import SentenceClassificationTask

        return SentenceClassificationTask(GLUE_TASKS[name], **options)

    return make


def _squad(**options):
    from keras_bert.tasks.question_answering import QuestionAnsweringTask

    return QuestionAnsweringTask(**options)


def _conll(**options):
    from keras_bert.tasks.token_classification import TokenClassificationTask

    return TokenClassificationTask(**options)


def _tsv(train_file=None, labels=None, **options):
    from keras_bert.tasks.sentence_classification import SentenceClassificationTask

    if train_file is None:
        raise ValueError("The tsv task reads its labels from its training file: "
                         "get_task('tsv', train_file=...).")
    return SentenceClassificationTask.from_tsv(train_file, labels, **options)


# Name -> factory(**options). Lower-case names, as google-research/bert's --task_name.
TASKS = {
    "squad": _squad,
    "sst-2": _glue("sst-2"),
    "mrpc": _glue("mrpc"),
    "cola": _glue("cola"),
    "rte": _glue("rte"),
    "tsv": _tsv,
    "conll2003": _conll,
}


@keras_bert_export("keras_bert.tasks.get_task")
def get_task(name, **options):
    """The task called `name` (case does not matter), built with `options` (its constructor's
    arguments, e.g. `max_seq_length`).

    Raises:
        ValueError: an unknown name (the message lists the known ones).

    Example:
    >>> keras_bert.tasks.get_task("SST-2", max_seq_length=64).max_seq_length
    64
    """
    factory = TASKS.get(str(name).lower())
    if factory is None:
        raise ValueError(f"Unknown task {name!r}; use one of {', '.join(TASKS)}.")
    return factory(**options)


def task_names():
    """The names `get_task` knows."""
    return tuple(TASKS)


@keras_bert_export("keras_bert.tasks.task_for_model")
def task_for_model(model, **options):
    """A task whose `build_model` makes models of `model`'s class (classification models get a
    generic task with `model`'s number of classes, named by their class ids).

    Raises:
        TypeError: `model` is not a fine-tuned keras_bert task model.
    """
    from keras_bert.tasks.question_answering import QuestionAnsweringTask
    from keras_bert.tasks.sentence_classification import SentenceClassificationTask
    from keras_bert.tasks.token_classification import TokenClassificationTask

    def classes():
        return tuple(str(i) for i in range(getattr(model, "num_classes", 2)))

    candidates = (
        lambda: QuestionAnsweringTask(**options),
        lambda: TokenClassificationTask(labels=_labels(model, classes()), **options),
        lambda: SentenceClassificationTask(_layout(classes()), **options),
    )
    for make in candidates:
        task = make()
        if type(model) is task.model_class:
            return task
    raise TypeError(
        f"{type(model).__name__} is not a fine-tuned keras_bert task model: wrap an encoder in "
        "BertQuestionAnswerer, BertClassifier or BertTokenClassifier (and load its fine-tuned "
        "checkpoint) first.")


def _labels(model, default):
    """CoNLL-2003's tags when the model has their number of classes, else class ids."""
    from keras_bert.data.tasks.conll_ner import CONLL2003_LABELS

    count = getattr(model, "num_classes", None)
    return CONLL2003_LABELS if count in (None, len(CONLL2003_LABELS)) else default


def _layout(labels):
    from keras_bert.data.tasks.classification_data import ClassificationTask

    return ClassificationTask("classification", labels, 0, None, 1, None, False)
