"""Fuzzing the file readers with Hypothesis (issue 31): CoNLL, GLUE/TSV, bert_config.json and
vocab.txt.

Two kinds of property for each: a round trip (what a writer of the format produces from any
content is read back exactly; the writer here is the format's definition, not the package's
code), and arbitrary bytes or JSON, where the reader either loads something valid or raises its
documented error with a one-line message naming the file.
"""

import json

import pytest
from hypothesis import event
from hypothesis import example
from hypothesis import given
from hypothesis import strategies as st

from keras_bert.data.tasks.classification_data import GLUE_TASKS
from keras_bert.data.tasks.classification_data import TsvFormatError
from keras_bert.data.tasks.classification_data import generic_tsv_task
from keras_bert.data.tasks.classification_data import read_classification_examples
from keras_bert.data.tasks.conll_ner import CONLL2003_LABELS
from keras_bert.data.tasks.conll_ner import ConllFormatError
from keras_bert.data.tasks.conll_ner import read_conll
from keras_bert.models.bert_config import BertConfig
from keras_bert.tokenization.vocab import SPECIAL_TOKENS
from keras_bert.tokenization.vocab import load_vocabulary
from keras_bert.tokenization.vocab import write_vocabulary
from tests.reliability.strategies import user_text

pytestmark = pytest.mark.reliability
# A token of a one-token-per-line file: no character Python counts as space or a line break.
tokens = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1,
                 max_size=8).filter(lambda t: not any(c.isspace() for c in t))


def new_file(factory, name, data):
    path = factory.mktemp("fuzz") / name
    path.write_bytes(data)
    return path


def read_or_refused(read, error_type, path):
    """`read()`, or None when it raised `error_type` in one line naming `path`. Counts both."""
    try:
        value = read()
    except error_type as error:
        message = str(error)
        assert "\n" not in message and str(path) in message, message
        event("refused")
        return None
    event("read")
    return value


# === CoNLL ===

sentences = st.lists(st.lists(st.tuples(tokens.filter(lambda t: t != "-DOCSTART-"),
                                        st.sampled_from(CONLL2003_LABELS)),
                              min_size=1, max_size=12), min_size=1, max_size=6)


@given(sentences=sentences, line_end=st.sampled_from(["\n", "\r\n"]),
       docstart=st.booleans())
def test_conll_round_trip(sentences, line_end, docstart, tmp_path_factory):
    lines = ["-DOCSTART- -X- -X- O", ""] if docstart else []
    for sentence in sentences:
        lines += [f"{word} NNP B-NP {tag}" for word, tag in sentence] + [""]
    path = new_file(tmp_path_factory, "train.txt", line_end.join(lines).encode("utf-8"))
    read = read_conll(path)
    assert [list(zip(s.words, s.tags)) for s in read] == sentences


@given(raw=st.one_of(st.binary(max_size=200),
                     st.lists(st.one_of(user_text(max_words=5), st.sampled_from(
                         ["", "EU NNP B-NP B-ORG", "-DOCSTART- -X- -X- O", "x y z O"])),
                         max_size=8).map(lambda lines: "\n".join(lines).encode("utf-8"))))
@example(raw=b"EU NNP B-NP B-ORG\n\x80")  # found by this test: a raw UnicodeDecodeError before
def test_conll_any_file_is_read_or_refused_in_one_line(raw, tmp_path_factory):
    path = new_file(tmp_path_factory, "train.txt", raw)
    read = read_or_refused(lambda: read_conll(path), ConllFormatError, path)
    if read is None:
        return
    assert all(len(s.words) == len(s.tags) > 0 for s in read)
    assert all(tag in CONLL2003_LABELS for s in read for tag in s.tags)


# === GLUE / TSV ===

cells = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\t\r\n\x0b\x0c"
                              "\x1c\x1d\x1e\x85\u2028\u2029"), max_size=30)


@given(rows=st.lists(st.tuples(cells.filter(str.strip), cells, st.sampled_from(["0", "1"])),
                     min_size=1, max_size=10),
       task_name=st.sampled_from(["sst-2", "rte"]), bom=st.booleans(), line_end=st.sampled_from(["\n", "\r\n"]))
def test_glue_round_trip(rows, task_name, bom, line_end, tmp_path_factory):
    task = GLUE_TASKS[task_name]
    if task_name == "sst-2":
        lines = ["sentence\tlabel"] + [f"{a}\t{label}" for a, _, label in rows]
    else:
        lines = ["sentence1\tsentence2\tlabel\tidx"] + [
            f"{a}\t{b}\t{label}\t{i}" for i, (a, b, label) in enumerate(rows)]
    data = ("\ufeff" if bom else "") + line_end.join(lines) + line_end
    path = new_file(tmp_path_factory, "dev.tsv", data.encode("utf-8"))
    examples = read_classification_examples(path, task)
    assert [e.text_a for e in examples] == [a for a, _, _ in rows]
    assert [e.label for e in examples] == [label for _, _, label in rows]
    if task_name == "rte":
        assert [e.text_b for e in examples] == [b for _, b, _ in rows]


@given(raw=st.one_of(st.binary(max_size=200), st.lists(
           st.lists(st.one_of(cells, st.sampled_from(["0", "1", "label"])), max_size=4).map("\t".join),
           max_size=6).map(lambda lines: "\n".join(lines).encode("utf-8"))),
       task_name=st.sampled_from(sorted(GLUE_TASKS) + ["tsv"]))
@example(raw=b"\x80", task_name="cola")  # found by this test: a raw UnicodeDecodeError before
def test_tsv_any_file_is_read_or_refused_in_one_line(raw, task_name, tmp_path_factory):
    path = new_file(tmp_path_factory, "dev.tsv", raw)
    task = generic_tsv_task if task_name == "tsv" else lambda _: GLUE_TASKS[task_name]
    examples = read_or_refused(lambda: read_classification_examples(path, task(path)),
                               TsvFormatError, path)
    if examples is None:
        return
    assert all(e.label in task(path).labels for e in examples)


# === bert_config.json ===

config_keys = st.sampled_from(["vocab_size", "hidden_size", "num_hidden_layers",
                               "num_attention_heads", "intermediate_size", "hidden_act",
                               "hidden_dropout_prob", "attention_probs_dropout_prob",
                               "max_position_embeddings", "type_vocab_size", "initializer_range",
                               "layer_norm_eps", "model_type"])
config_values = st.one_of(st.integers(-2, 4096), st.floats(allow_nan=True), st.booleans(),
                          st.none(), st.text(max_size=6), st.sampled_from(["gelu", "relu"]),
                          st.lists(st.integers(), max_size=2))
valid_configs = st.builds(
    lambda heads, head_size, **rest: dict(num_attention_heads=heads, hidden_size=heads * head_size,
                                          **rest),
    heads=st.integers(1, 16), head_size=st.integers(1, 64), vocab_size=st.integers(1, 50000),
    num_hidden_layers=st.integers(1, 24), intermediate_size=st.integers(1, 8192),
    hidden_act=st.sampled_from(["gelu", "relu"]),
    hidden_dropout_prob=st.floats(0, 0.99), attention_probs_dropout_prob=st.floats(0, 0.99),
    max_position_embeddings=st.integers(1, 4096), type_vocab_size=st.integers(1, 16),
    initializer_range=st.floats(0.0001, 1.0))


@given(values=valid_configs)
def test_config_round_trip(values, tmp_path_factory):
    path = tmp_path_factory.mktemp("config") / "bert_config.json"
    BertConfig(**values).to_json_file(path)
    assert BertConfig.from_json_file(path).to_dict() == BertConfig(**values).to_dict()
    assert json.loads(path.read_text()) == BertConfig(**values).to_dict()


@given(content=st.one_of(
           valid_configs.flatmap(lambda good: st.dictionaries(config_keys, config_values,
                                                              max_size=3).map(lambda bad: {**good, **bad})),
           st.dictionaries(config_keys, config_values, max_size=13), config_values),
       raw=st.one_of(st.none(), st.binary(max_size=60)))
# Found by this test: a raw UnicodeDecodeError; value errors that did not name the file; a
# string dropout rate or layer_norm_eps raised TypeError from a comparison.
@example(content=None, raw=b"\x80")
@example(content={"vocab_size": 0, "hidden_size": 8, "num_hidden_layers": 1,
                  "num_attention_heads": 1, "intermediate_size": 4}, raw=None)
@example(content={"vocab_size": 9, "hidden_size": 8, "num_hidden_layers": 1,
                  "num_attention_heads": 1, "intermediate_size": 4, "hidden_dropout_prob": "0.1"},
         raw=None)
@example(content={"vocab_size": 9, "hidden_size": 8, "num_hidden_layers": 1,
                  "num_attention_heads": 1, "intermediate_size": 4, "layer_norm_eps": "1e-12"},
         raw=None)
def test_config_any_file_is_read_or_refused_in_one_line(content, raw, tmp_path_factory):
    data = raw if raw is not None else json.dumps(content).encode("utf-8")
    path = new_file(tmp_path_factory, "bert_config.json", data)
    config = read_or_refused(lambda: BertConfig.from_json_file(path), ValueError, path)
    if config is None:
        return
    assert config.hidden_size % config.num_attention_heads == 0
    assert 0 <= config.hidden_dropout_prob < 1 and 0 <= config.attention_probs_dropout_prob < 1
    assert all(isinstance(getattr(config, key), int) and getattr(config, key) >= 1 for key in (
        "vocab_size", "hidden_size", "num_hidden_layers", "intermediate_size",
        "max_position_embeddings", "type_vocab_size"))


# === vocab.txt ===

@given(extra=st.lists(tokens, unique=True, max_size=40), data=st.data())
def test_vocabulary_round_trip(extra, data, tmp_path_factory):
    vocabulary = data.draw(st.permutations(list(SPECIAL_TOKENS) + [t for t in extra
                                                                   if t not in SPECIAL_TOKENS]))
    path = write_vocabulary(vocabulary, tmp_path_factory.mktemp("vocab") / "vocab.txt")
    assert path.read_bytes() == "".join(t + "\n" for t in vocabulary).encode("utf-8")
    assert load_vocabulary(path) == vocabulary


@st.composite
def vocabulary_files(draw):
    """A valid vocab.txt, then maybe one thing a user might do to it."""
    lines = draw(st.permutations(list(SPECIAL_TOKENS) + draw(st.lists(tokens, max_size=10))))
    edit = draw(st.sampled_from(["none", "crlf", "blank", "space", "duplicate", "drop", "text"]))
    at = draw(st.integers(0, len(lines) - 1))
    if edit == "blank":
        lines.insert(at, "")
    elif edit == "space":
        lines[at] += draw(st.sampled_from([" ", "\t", " 12", "\u3000"]))
    elif edit == "duplicate":
        lines.insert(at, lines[draw(st.integers(0, len(lines) - 1))])
    elif edit == "drop":
        del lines[at]
    elif edit == "text":
        lines[at] = draw(user_text(2))
    end = "\r\n" if edit == "crlf" else "\n"
    return "".join(line + end for line in lines).encode("utf-8")


@given(raw=st.one_of(st.binary(max_size=120), vocabulary_files(),
                     st.lists(st.one_of(tokens, st.sampled_from(SPECIAL_TOKENS), user_text(2)),
                              max_size=12).map(lambda lines: "\n".join(lines).encode("utf-8"))))
def test_vocabulary_any_file_is_read_or_refused_in_one_line(raw, tmp_path_factory):
    path = new_file(tmp_path_factory, "vocab.txt", raw)
    vocabulary = read_or_refused(lambda: load_vocabulary(path), ValueError, path)
    if vocabulary is None:
        return
    assert set(SPECIAL_TOKENS) <= set(vocabulary) and len(set(vocabulary)) == len(vocabulary)
