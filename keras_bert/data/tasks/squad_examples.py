"""Read SQuAD v1.1 / v2.0 JSON into `SquadExample`s (whitespace words + answer word span)."""

import dataclasses
import json
import os

from keras_bert.api_export import keras_bert_export
from keras_bert.data.data_files import read_data_text


@dataclasses.dataclass
class SquadExample:
    """One question on one paragraph, in google-research/bert's `run_squad.py` layout.

    Attributes:
        qas_id: str, the question id (the key of `predictions.json`).
        question_text: str.
        doc_tokens: list of str, the context split on whitespace (shared by the paragraph's
            questions). Answers are predicted as spans of these words, then mapped back to text.
        orig_answer_text: str, the first gold answer ("" for an impossible v2.0 question and at
            prediction time).
        start_position, end_position: int word indices (inclusive) of that answer in
            `doc_tokens`; -1 when there is none.
        is_impossible: bool, v2.0's flag.
    """

    qas_id: str
    question_text: str
    doc_tokens: list
    orig_answer_text: str = ""
    start_position: int = -1
    end_position: int = -1
    is_impossible: bool = False


def _is_whitespace(char):
    return char in " \t\r\n" or ord(char) == 0x202F


def split_on_whitespace(context):
    """`(doc_tokens, char_to_word_offset)`: the words of `context` and each character's word index."""
    doc_tokens, char_to_word_offset = [], []
    previous_was_space = True
    for char in context:
        if _is_whitespace(char):
            previous_was_space = True
        else:
            if previous_was_space:
                doc_tokens.append(char)
            else:
                doc_tokens[-1] += char
            previous_was_space = False
        char_to_word_offset.append(len(doc_tokens) - 1)
    return doc_tokens, char_to_word_offset


class SquadFormatError(ValueError):
    """A SQuAD file that does not follow the format, with the file, line and JSON path."""


class _Locator:
    """Names where an entry is: the JSON path, and the line of its question id in the file."""

    def __init__(self, path, raw):
        self.path = path
        self.raw = raw

    def line_of(self, qas_id):
        """The line of the id's first mention, written raw or \\u-escaped; None if neither."""
        at = self.raw.find(json.dumps(qas_id, ensure_ascii=False))
        if at < 0:
            at = self.raw.find(json.dumps(qas_id))
        return self.raw.count("\n", 0, at) + 1 if at >= 0 else None

    def error(self, where, message, qas_id=None):
        line = self.line_of(qas_id) if qas_id is not None else None
        place = f"{self.path}" + (f", line {line}" if line else "") + f", {where}"
        return SquadFormatError(f"{place}: {message}")


def _read_text(path):
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"SQuAD file {path} does not exist.")
    return read_data_text(path, SquadFormatError, hint="is it a SQuAD .json?")


def _field(entry, key, kind, locator, where, qas_id=None):
    if not isinstance(entry, dict) or key not in entry:
        raise locator.error(where, f"missing {key!r}", qas_id)
    value = entry[key]
    if not isinstance(value, kind):
        raise locator.error(
            where, f"{key!r} should be {kind.__name__}, got {type(value).__name__}", qas_id
        )
    return value


@keras_bert_export("keras_bert.data.read_squad_examples")
def read_squad_examples(path, is_training, version_2_with_negative=False):
    """Reads a SQuAD JSON file (`.json` or `.json.gz`) into a list of `SquadExample`.

    Every question becomes one example. With `is_training`, the first answer becomes the
    target word span; its `answer_start` must point at its text in the context, else a
    `SquadFormatError` names the file, line, JSON path and question id (so no silently shifted
    labels). v2.0 questions with `is_impossible` get no span; without
    `version_2_with_negative`, such a question is an error (a v2.0 file read as v1.1).

    Args:
        path: str, the SQuAD file.
        is_training: bool. Build target spans (training), or keep only the questions.
        version_2_with_negative: bool. Accept v2.0 unanswerable questions.

    Returns:
        list of `SquadExample`, in file order.
    """
    raw = _read_text(path)
    try:
        dataset = json.loads(raw)
    except json.JSONDecodeError as e:
        raise SquadFormatError(
            f"{path}, line {e.lineno}, column {e.colno}: not valid JSON ({e.msg})."
        ) from None
    return squad_examples_from_dataset(dataset, is_training, version_2_with_negative,
                                       _Locator(path, raw))


@keras_bert_export("keras_bert.data.squad_examples_from_dataset")
def squad_examples_from_dataset(dataset, is_training, version_2_with_negative=False,
                                source="the SQuAD dataset"):
    """`read_squad_examples` for a SQuAD dict already in memory (a subset of a file's
    articles, say): the same checks, errors naming `source` and the JSON path."""
    locator = source if isinstance(source, _Locator) else _Locator(source, "")
    path = locator.path
    articles = _field(dataset, "data", list, locator, "top level")
    examples = []
    for a, article in enumerate(articles):
        for p, paragraph in enumerate(_field(article, "paragraphs", list, locator, f"data[{a}]")):
            where = f"data[{a}].paragraphs[{p}]"
            context = _field(paragraph, "context", str, locator, where)
            doc_tokens, char_to_word_offset = split_on_whitespace(context)
            for q, qa in enumerate(_field(paragraph, "qas", list, locator, where)):
                qa_where = f"{where}.qas[{q}]"
                qas_id = _field(qa, "id", str, locator, qa_where)
                question = _field(qa, "question", str, locator, qa_where, qas_id)
                if not question.strip():
                    raise locator.error(qa_where, f"question {qas_id!r} is empty", qas_id)
                example = SquadExample(qas_id, question, doc_tokens)
                is_impossible = qa.get("is_impossible", False)
                if is_impossible and not version_2_with_negative:
                    raise locator.error(
                        qa_where,
                        f"question {qas_id!r} is a v2.0 unanswerable question; pass "
                        "`version_2_with_negative` to read SQuAD v2.0 files",
                        qas_id,
                    )
                example.is_impossible = bool(is_impossible)
                if is_training and not is_impossible:
                    _set_answer_span(example, qa, context, char_to_word_offset, locator, qa_where)
                examples.append(example)
    if not examples:
        raise SquadFormatError(f"{path}: no questions found (empty 'data' or 'qas').")
    return examples


def _set_answer_span(example, qa, context, char_to_word_offset, locator, where):
    qas_id = example.qas_id
    answers = _field(qa, "answers", list, locator, where, qas_id)
    if not answers:
        raise locator.error(
            where, f"question {qas_id!r} has no answers (and is not marked is_impossible)", qas_id
        )
    answer = answers[0]
    text = _field(answer, "text", str, locator, f"{where}.answers[0]", qas_id)
    start = _field(answer, "answer_start", int, locator, f"{where}.answers[0]", qas_id)
    if not text.strip():
        raise locator.error(
            f"{where}.answers[0]",
            f"the answer of question {qas_id!r} is blank ({text!r}): give the answer's words.",
            qas_id,
        )
    found = context[start : start + len(text)] if 0 <= start < len(context) else ""
    if found != text:
        raise locator.error(
            f"{where}.answers[0]",
            f"answer_start {start} of question {qas_id!r} does not point at its answer "
            f"{text!r} (the context there reads {found!r}). Fix answer_start (the character "
            "offset of the answer in the context).",
            qas_id,
        )
    example.orig_answer_text = text
    example.start_position = char_to_word_offset[start]
    example.end_position = char_to_word_offset[start + len(text) - 1]
