"""`keras_bert.tasks`: the registry by name and by model, and each task's settings checks."""

import pytest

import keras_bert
from tests.test_case import TINY


def test_every_name_gives_a_task_of_that_name():
    for name in keras_bert.tasks.task_names():
        if name == "tsv":
            continue  # its name is the file's task; it needs a training file
        task = keras_bert.tasks.get_task(name.upper(), max_seq_length=32)
        assert task.name == name and task.max_seq_length == 32 and task.monitor


def test_an_unknown_name_lists_the_known_ones():
    with pytest.raises(ValueError, match="Unknown task 'qnli'; use one of squad, sst-2"):
        keras_bert.tasks.get_task("qnli")


def test_each_model_maps_back_to_its_task_kind():
    encoder = keras_bert.BertEncoder(**TINY)
    cases = [(keras_bert.BertQuestionAnswerer(encoder), "question_answering"),
             (keras_bert.BertClassifier(encoder, 3), "classification"),
             (keras_bert.BertTokenClassifier(encoder, 9), "token_classification")]
    for model, kind in cases:
        task = keras_bert.tasks.task_for_model(model)
        assert task.kind == kind
        assert type(task.build_model(encoder)) is type(model)
    assert keras_bert.tasks.task_for_model(cases[1][0]).labels == ("0", "1", "2")
    with pytest.raises(TypeError, match="BertEncoder is not a fine-tuned keras_bert task model"):
        keras_bert.tasks.task_for_model(encoder)


@pytest.mark.parametrize("options, message", [
    (dict(doc_stride=0), "doc_stride=0: it must be >= 1"),
    (dict(max_seq_length=2), "max_seq_length=2: it must be at least 3"),
])
def test_bad_window_settings_say_which(options, message):
    with pytest.raises(ValueError, match=message):
        keras_bert.tasks.QuestionAnsweringTask(**options)
