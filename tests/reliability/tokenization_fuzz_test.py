"""Fuzzing the tokenizers and packers with Hypothesis (issue 31).

Oracles: google-research/bert's algorithm in `ReferenceTokenizer` (checked against google's own
code elsewhere) for the in-graph `BertTokenizer`; WordPiece's definition (a word's pieces spell
the word) for both; google's `_truncate_seq_pair`, written here in closed form, for the packers.
"""

import functools

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st

from keras_bert.tokenization.bert_tokenizer import BertTokenizer
from keras_bert.tokenization.packing import pack_segments
from keras_bert.tokenization.tf_packing import BertPacker
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.keras_bert.tokenization.hard_cases import vocab_path
from tests.reliability.strategies import long_words
from tests.reliability.strategies import user_text

pytestmark = pytest.mark.reliability
CASINGS = ("uncased", "cased")


@functools.lru_cache(maxsize=None)
def tokenizers(casing):
    """(reference, in-graph as one traced tf.function over a batch of strings)."""
    do_lower_case = casing == "uncased"
    reference = ReferenceTokenizer(vocab_path(casing), do_lower_case=do_lower_case)
    layer = BertTokenizer(vocab_path(casing), do_lower_case=do_lower_case)
    in_graph = tf.function(layer, input_signature=[tf.TensorSpec([None], tf.string)])
    return reference, in_graph


@pytest.mark.parametrize("casing", CASINGS)
@given(texts=st.lists(st.one_of(user_text(), long_words()), min_size=1, max_size=8))
def test_in_graph_tokenizer_gives_the_reference_ids(casing, texts):
    reference, in_graph = tokenizers(casing)
    expected = [reference.encode(text) for text in texts]
    assert in_graph(tf.constant(texts)).to_list() == expected


@pytest.mark.parametrize("casing", CASINGS)
@given(text=user_text())
def test_a_words_pieces_spell_the_word(casing, text):
    reference, _ = tokenizers(casing)
    vocabulary = set(reference.vocabulary)
    for word in reference.basic_tokenize(text):
        assert word and not any(char.isspace() for char in word)
        pieces = reference.wordpiece_tokenize(word)
        assert all(piece in vocabulary for piece in pieces)
        if pieces == ["[UNK]"]:
            continue
        assert pieces[0] == word[: len(pieces[0])] and not pieces[0].startswith("##")
        assert all(piece.startswith("##") for piece in pieces[1:])
        assert pieces[0] + "".join(piece[2:] for piece in pieces[1:]) == word


def google_truncation(len_a, len_b, max_tokens):
    """Segment lengths after `_truncate_seq_pair` (pop from the longer, from B on a tie), in
    closed form: untouched if they fit, else the shorter stays whole while it fits in its half
    and both end at ceil/floor of half the budget otherwise."""
    if len_a + len_b <= max_tokens:
        return len_a, len_b
    kept_a = min(len_a, max(max_tokens - len_b, (max_tokens + 1) // 2))
    return kept_a, max_tokens - kept_a


segments = st.lists(st.integers(5, 999), max_size=40)


@given(first=st.lists(segments, min_size=1, max_size=4), data=st.data(),
       sequence_length=st.integers(3, 48))
def test_packers_agree_and_truncate_as_google(first, data, sequence_length):
    second = data.draw(st.lists(segments, min_size=len(first), max_size=len(first)))
    ids = dict(cls_token_id=2, sep_token_id=3, pad_token_id=0)
    packed = pack_segments(first, second, sequence_length=sequence_length, **ids)
    packer = BertPacker(sequence_length, **ids)
    in_graph = packer((tf.ragged.constant(first, dtype=tf.int32, row_splits_dtype=tf.int64),
                       tf.ragged.constant(second, dtype=tf.int32, row_splits_dtype=tf.int64)))
    for key in ("token_ids", "segment_ids", "padding_mask"):
        np.testing.assert_array_equal(in_graph[key].numpy(), packed[key], err_msg=key)
    for row, (a, b) in enumerate(zip(first, second)):
        kept_a, kept_b = google_truncation(len(a), len(b), sequence_length - 3)
        expected = [2, *a[:kept_a], 3, *b[:kept_b], 3]
        real = len(expected)
        assert packed["token_ids"][row].tolist() == expected + [0] * (sequence_length - real)
        assert packed["segment_ids"][row].tolist() == (
            [0] * (kept_a + 2) + [1] * (kept_b + 1) + [0] * (sequence_length - real))
        assert packed["padding_mask"][row].tolist() == [1] * real + [0] * (sequence_length - real)


@given(first=st.lists(segments, min_size=1, max_size=4), sequence_length=st.integers(2, 48))
def test_single_segments_keep_their_first_tokens(first, sequence_length):
    packed = pack_segments(first, sequence_length=sequence_length, cls_token_id=2, sep_token_id=3)
    in_graph = BertPacker(sequence_length, cls_token_id=2, sep_token_id=3)(
        tf.ragged.constant(first, dtype=tf.int32, row_splits_dtype=tf.int64))
    np.testing.assert_array_equal(in_graph["token_ids"].numpy(), packed["token_ids"])
    for row, a in enumerate(first):
        kept = a[: sequence_length - 2]
        real = len(kept) + 2
        assert packed["token_ids"][row].tolist() == [2, *kept, 3] + [0] * (sequence_length - real)
        assert packed["segment_ids"][row].tolist() == [0] * sequence_length
