"""GLUE / TSV reading: the real files' layouts, and errors naming file and line."""

import pytest

from keras_bert.data.tasks.classification_data import GLUE_TASKS
from keras_bert.data.tasks.classification_data import TsvFormatError
from keras_bert.data.tasks.classification_data import generic_tsv_task
from keras_bert.data.tasks.classification_data import read_classification_examples
from keras_bert.data.data_files import find_data_file
from tests.data_paths import shared_data_dir


@pytest.mark.parametrize("task, folder, dev_count, first_a, has_b", [
    ("sst-2", "SST-2", 872, "it 's a charming and often affecting journey . ", False),
    ("mrpc", "MRPC", 408, "He said the foodservice pie business doesn't fit the company's long-term growth strategy.", True),
    ("cola", "CoLA", 527, "The sailors rode the breeze clear of the rocks.", False),
    ("rte", "RTE", 277, "Dana Reeve, the widow of the actor Christopher Reeve, has died of lung cancer at age 44, according to the Christopher Reeve Foundation.", True),
])
def test_glue_dev_sets_read_with_their_counts(task, folder, dev_count, first_a, has_b):
    spec = GLUE_TASKS[task]
    examples = read_classification_examples(
        find_data_file(shared_data_dir() / "glue" / folder, spec.dev_file), spec
    )
    assert len(examples) == dev_count
    assert examples[0].text_a == first_a
    assert (examples[0].text_b is not None) == has_b
    assert {e.label for e in examples} == {"0", "1"}


def test_sst2_train_is_read_from_its_gz():
    spec = GLUE_TASKS["sst-2"]
    path = find_data_file(shared_data_dir() / "glue" / "SST-2", spec.train_file)
    assert path.endswith("train.tsv.gz")
    assert len(read_classification_examples(path, spec)) == 67349


def test_wrong_column_count_names_file_and_line(tmp_path):
    path = tmp_path / "dev.tsv"
    path.write_text("sentence\tlabel\ngood film\t1\nbad film 0\n")
    with pytest.raises(TsvFormatError, match=r"dev.tsv:3: 1 tab-separated columns, expected 2"):
        read_classification_examples(str(path), GLUE_TASKS["sst-2"])


def test_unknown_label_names_file_and_line(tmp_path):
    path = tmp_path / "dev.tsv"
    path.write_text("sentence\tlabel\ngood film\t1\nbad film\tnegative\n")
    with pytest.raises(TsvFormatError, match=r"dev.tsv:3: label 'negative' is not one of"):
        read_classification_examples(str(path), GLUE_TASKS["sst-2"])


def test_generic_tsv_task_with_pairs_and_header(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_text("premise\thypothesis\tlabel\na\tb\tyes\nc\td\tno\ne\tf\tmaybe\n")
    task = generic_tsv_task(str(path))
    assert task.labels == ("maybe", "no", "yes") and task.text_b == 1
    examples = read_classification_examples(str(path), task)
    assert [(e.text_a, e.text_b, e.label) for e in examples][0] == ("a", "b", "yes")
    assert examples[0].source.endswith("train.tsv:2")
    with pytest.raises(TsvFormatError, match="4 tab-separated columns; a generic TSV task has 2"):
        (tmp_path / "bad.tsv").write_text("a\tb\tc\td\n")
        generic_tsv_task(str(tmp_path / "bad.tsv"))


def test_missing_file_says_what_data_dir_needs(tmp_path):
    with pytest.raises(FileNotFoundError, match="`data_dir` must hold the task's dev.tsv"):
        find_data_file(str(tmp_path), "dev.tsv")
