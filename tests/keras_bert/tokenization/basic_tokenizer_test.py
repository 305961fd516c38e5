"""Tests for the in-graph `BasicTokenizer` word splitting against the reference's."""

import pytest
import tensorflow as tf

from keras_bert.tokenization.basic_tokenizer import BasicTokenizer
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.keras_bert.tokenization.hard_cases import HARD_CASES

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


@pytest.mark.parametrize("do_lower_case", [True, False])
def test_words_match_reference_on_hard_cases(do_lower_case):
    reference = ReferenceTokenizer(VOCAB, do_lower_case=do_lower_case)
    texts = [text for _, text in HARD_CASES]
    words = BasicTokenizer(do_lower_case)(tf.constant(texts)).to_list()
    for (label, text), row in zip(HARD_CASES, words):
        assert [w.decode("utf-8") for w in row] == reference.basic_tokenize(text), label


def test_split_words_returns_batch_rows():
    texts = tf.constant(["Héllo, wörld!", "", "a b"])
    words, rows = BasicTokenizer(do_lower_case=True).split_words(texts)
    assert words.numpy().tolist() == [b"hello", b",", b"world", b"!", b"a", b"b"]
    assert rows.numpy().tolist() == [0, 0, 0, 0, 2, 2]


def test_final_sigma_follows_python_context_rules():
    # Case-ignorable characters (the apostrophe U+02BC, the full stop) are looked through;
    # words are the whitespace-separated tokens, before punctuation splitting.
    texts = ["ΟΔΟΣ", "ΟΔΟΣ.", "ΟΔΟΣ.Α", "Σ", "ʼΣ", "AʼΣ", "ΣΑΣ ΣΑΣ", "ΑΣ\u0301", "ΑΣ\u200dΑ"]
    texts += ["ΣΣΣ"]
    reference = ReferenceTokenizer(VOCAB)
    words = BasicTokenizer(do_lower_case=True)(tf.constant(texts)).to_list()
    expected = [reference.basic_tokenize(text) for text in texts]
    assert [[w.decode() for w in row] for row in words] == expected
    assert [[w.decode() for w in row] for row in words[:3]] == [
        ["οδος"],
        ["οδος", "."],
        ["οδοσ", ".", "α"],
    ]


def test_canonical_reordering_of_marks_that_survive_stripping():
    # U+1D16D (class 226) before U+1D165 (class 216): NFD swaps them; both are Mc, so kept.
    text = "x\U0001d16d\U0001d165"
    words = BasicTokenizer(do_lower_case=True)(tf.constant([text])).to_list()
    assert words == [["x\U0001d165\U0001d16d".encode()]]
    assert ReferenceTokenizer(VOCAB).basic_tokenize(text) == ["x\U0001d165\U0001d16d"]


def test_words_emptied_by_accent_stripping_vanish():
    words = BasicTokenizer(do_lower_case=True)(tf.constant(["\u0301 a \u0301\u0302 b"])).to_list()
    assert words == [[b"a", b"b"]]
