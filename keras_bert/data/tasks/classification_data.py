"""Sentence(-pair) classification data: the GLUE tasks' TSV layouts and a generic TSV task."""

import dataclasses
import io

from keras_bert.api_export import keras_bert_export
from keras_bert.data.data_files import read_data_text


@dataclasses.dataclass(frozen=True)
class ClassificationTask:
    """Where a task's TSV files are and which columns hold the texts and the label.

    Attributes:
        name: str, the `--task_name`.
        labels: tuple of str, the label strings in class-id order.
        text_a, text_b, label: int column indices (`text_b` is `None` for single sentences).
        num_columns: int, the columns every row must have (`None`: 2 or 3, for the generic task).
        header: bool, whether the first row is a header.
        train_file, dev_file: file names in `--data_dir` (a `.gz` next to them is read too).
        metrics: tuple of str, GLUE's metrics for the task (the first one picks the best
            checkpoint).
    """

    name: str
    labels: tuple
    text_a: int
    text_b: object
    label: int
    num_columns: object
    header: bool
    train_file: str = "train.tsv"
    dev_file: str = "dev.tsv"
    metrics: tuple = ("accuracy",)


GLUE_TASKS = {
    "sst-2": ClassificationTask("sst-2", ("0", "1"), 0, None, 1, 2, True),
    # Quality  #1 ID  #2 ID  #1 String  #2 String; GLUE reports F1 (of class 1) and accuracy.
    "mrpc": ClassificationTask("mrpc", ("0", "1"), 3, 4, 0, 5, True, metrics=("f1", "accuracy")),
    # source  label  original-label  sentence; no header; GLUE reports Matthews correlation.
    "cola": ClassificationTask(
        "cola", ("0", "1"), 3, None, 1, 4, False, "in_domain_train.tsv", "in_domain_dev.tsv",
        metrics=("mcc", "accuracy"),
    ),
    # sentence1  sentence2  label  idx (0 = entailment, 1 = not_entailment).
    "rte": ClassificationTask("rte", ("0", "1"), 0, 1, 2, 4, True),
}


@dataclasses.dataclass(frozen=True)
class ClassificationExample:
    """One row: `text_a`, optional `text_b`, the label string and where it came from."""

    text_a: str
    text_b: object
    label: str
    source: str  # "path:line"


class TsvFormatError(ValueError):
    """A TSV row that does not fit the task, naming the file and line."""


def generic_tsv_task(path, labels=None):
    """The generic task: rows `text<TAB>label` or `text_a<TAB>text_b<TAB>label`.

    A first row whose last column is `label` is a header. Labels are `labels` if given, else
    the sorted label strings of the file at `path`.
    """
    rows = list(_rows(path))
    if not rows:
        raise TsvFormatError(f"{path}: no rows.")
    header = rows[0][1][-1].strip().lower() == "label"
    width = len(rows[0][1])
    if width not in (2, 3):
        raise TsvFormatError(
            f"{path}:{rows[0][0]}: {width} tab-separated columns; a generic TSV task has 2 "
            "(text, label) or 3 (text_a, text_b, label)."
        )
    if labels is None:
        labels = tuple(sorted({row[-1] for _, row in rows[1 if header else 0 :] if len(row) == width}))
    return ClassificationTask(
        "tsv", tuple(labels), 0, 1 if width == 3 else None, width - 1, width, header
    )


def tsv_lines(path):
    """`(line_number, line)` for each non-blank line of a task's TSV file (`.gz` too), the
    header included, without its line break: the rows the readers here see, in order."""
    # utf-8-sig: MRPC's files start with a byte-order mark.
    with io.StringIO(read_data_text(path, TsvFormatError, "utf-8-sig"), newline="") as f:
        for line_number, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if line.strip():
                yield line_number, line


def _rows(path):
    for line_number, line in tsv_lines(path):
        yield line_number, line.split("\t")


@keras_bert_export("keras_bert.data.read_classification_examples")
def read_classification_examples(path, task, has_labels=True):
    """Reads the rows of `path` for `task` into `ClassificationExample`s.

    Every row must have the task's column count and (with `has_labels`) a label from
    `task.labels`; otherwise `TsvFormatError` names the file and line and says what to do.
    Quotes are not special (google-research/bert reads GLUE with `quotechar=None`).
    """
    examples = []
    rows = _rows(path)
    if task.header:
        next(rows, None)
    for line_number, row in rows:
        where = f"{path}:{line_number}"
        expected = task.num_columns
        if len(row) != expected:
            raise TsvFormatError(
                f"{where}: {len(row)} tab-separated columns, expected {expected} for task "
                f"{task.name!r}. Is it the right file for `task_name`, with tabs between columns?"
            )
        label = row[task.label].strip() if has_labels else task.labels[0]
        if label not in task.labels:
            raise TsvFormatError(
                f"{where}: label {label!r} is not one of the task's labels {list(task.labels)}. "
                "Fix the row, or give the full label list (`label_list` for a TSV task)."
            )
        text_b = row[task.text_b] if task.text_b is not None else None
        examples.append(ClassificationExample(row[task.text_a], text_b, label, where))
    if not examples:
        raise TsvFormatError(f"{path}: no examples (empty file, or only a header).")
    return examples

