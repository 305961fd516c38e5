"""Tests for `BertPacker`: layouts, google's pair truncation, errors, tf.data and serialization."""

import itertools

import keras
import pytest
import tensorflow as tf

from keras_bert.tokenization.tf_packing import BertPacker
from tests.keras_bert.tokenization.google_features import CLS
from tests.keras_bert.tokenization.google_features import PAD
from tests.keras_bert.tokenization.google_features import SEP
from tests.keras_bert.tokenization.google_features import google_layout
from tests.keras_bert.tokenization.google_features import truncate_seq_pair


def pack(packer, a, b=None):
    a = tf.ragged.constant(a, dtype=tf.int32)
    outputs = packer(a if b is None else (a, tf.ragged.constant(b, dtype=tf.int32)))
    return {name: value.numpy().tolist() for name, value in outputs.items()}


def test_single_segment_layout():
    packer = BertPacker(sequence_length=7, cls_token_id=CLS, sep_token_id=SEP)
    outputs = pack(packer, [[5, 6, 7], [8, 9, 10, 11, 12, 13, 14]])
    assert outputs == {
        "token_ids": [[CLS, 5, 6, 7, SEP, PAD, PAD], [CLS, 8, 9, 10, 11, 12, SEP]],
        "segment_ids": [[0] * 7, [0] * 7],
        "padding_mask": [[1, 1, 1, 1, 1, 0, 0], [1] * 7],
    }


def test_pair_layout():
    packer = BertPacker(sequence_length=9, cls_token_id=CLS, sep_token_id=SEP)
    outputs = pack(packer, [[5, 6], [7]], [[8, 9, 10], []])
    assert outputs == {
        "token_ids": [
            [CLS, 5, 6, SEP, 8, 9, 10, SEP, PAD],
            [CLS, 7, SEP, SEP, PAD, PAD, PAD, PAD, PAD],
        ],
        "segment_ids": [[0, 0, 0, 0, 1, 1, 1, 1, 0], [0, 0, 0, 1, 0, 0, 0, 0, 0]],
        "padding_mask": [[1, 1, 1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 0, 0, 0, 0, 0]],
    }


def test_outputs_are_int32_with_fixed_length():
    packer = BertPacker(sequence_length=6, cls_token_id=CLS, sep_token_id=SEP)
    outputs = packer(tf.ragged.constant([[1, 2], [3]], dtype=tf.int64))
    for value in outputs.values():
        assert value.dtype == tf.int32 and value.shape == (2, 6)


def test_pair_truncation_matches_google_exhaustively():
    # Every (len_a, len_b) up to 12 against the direct port, for each sequence length.
    for sequence_length in (3, 4, 5, 8, 11):
        packer = BertPacker(sequence_length, cls_token_id=CLS, sep_token_id=SEP)
        lengths = list(itertools.product(range(13), range(13)))
        a = [list(range(1000, 1000 + la)) for la, _ in lengths]
        b = [list(range(2000, 2000 + lb)) for _, lb in lengths]
        outputs = pack(packer, a, b)
        for i, (tokens_a, tokens_b) in enumerate(zip(a, b)):
            tokens, segments, mask = google_layout(tokens_a, tokens_b, sequence_length)
            got = (outputs["token_ids"][i], outputs["segment_ids"][i], outputs["padding_mask"][i])
            assert got == (tokens, segments, mask), (sequence_length, len(tokens_a), len(tokens_b))


def test_truncation_goldens():
    # A long passage next to a short question: the question stays whole.
    assert truncate_seq_pair(range(10), range(3), 8) == ([0, 1, 2, 3, 4], [0, 1, 2])
    # Equal lengths: B loses the tie, so A keeps the extra token.
    assert truncate_seq_pair(range(5), range(5), 5) == ([0, 1, 2], [0, 1])
    packer = BertPacker(sequence_length=8, cls_token_id=CLS, sep_token_id=SEP)
    outputs = pack(packer, [[1, 2, 3, 4, 5, 6]], [[7, 8, 9, 10]])
    assert outputs["token_ids"] == [[CLS, 1, 2, 3, SEP, 7, 8, SEP]]


def test_single_segment_truncation_keeps_the_start():
    packer = BertPacker(sequence_length=4, cls_token_id=CLS, sep_token_id=SEP)
    assert pack(packer, [[1, 2, 3, 4, 5]])["token_ids"] == [[CLS, 1, 2, SEP]]
    for length in range(7):
        tokens = list(range(1, length + 1))
        assert pack(packer, [tokens])["token_ids"] == [google_layout(tokens, None, 4)[0]]


def test_pad_token_id_in_input_is_still_a_real_token():
    packer = BertPacker(sequence_length=5, cls_token_id=2, sep_token_id=3, pad_token_id=0)
    outputs = pack(packer, [[0, 7]])
    assert outputs["token_ids"] == [[2, 0, 7, 3, 0]]
    assert outputs["padding_mask"] == [[1, 1, 1, 1, 0]]


def test_unbatched_dense_input():
    packer = BertPacker(sequence_length=7, cls_token_id=CLS, sep_token_id=SEP)
    outputs = packer((tf.constant([1, 2]), tf.constant([3])))
    assert outputs["token_ids"].numpy().tolist() == [CLS, 1, 2, SEP, 3, SEP, PAD]
    assert outputs["segment_ids"].numpy().tolist() == [0, 0, 0, 0, 1, 1, 0]
    assert outputs["padding_mask"].numpy().tolist() == [1, 1, 1, 1, 1, 1, 0]


def test_sequence_length_too_small_for_special_tokens():
    with pytest.raises(ValueError, match=r"sequence_length=1 cannot hold \[CLS\] and \[SEP\]"):
        BertPacker(sequence_length=1, cls_token_id=CLS, sep_token_id=SEP)
    packer = BertPacker(sequence_length=2, cls_token_id=CLS, sep_token_id=SEP)
    assert pack(packer, [[1, 2]])["token_ids"] == [[CLS, SEP]]
    with pytest.raises(ValueError, match=r"cannot hold \[CLS\] A \[SEP\] B \[SEP\]: pairs need "
                                         r"at least 3\."):
        pack(packer, [[1]], [[2]])


def test_a_list_of_tensors_is_a_pair_and_a_list_of_ids_one_segment():
    # Keras hands a functional model's (a, b) to the layer as a list.
    packer = BertPacker(sequence_length=6, cls_token_id=CLS, sep_token_id=SEP)
    a, b = tf.constant([[5, 6]]), tf.constant([[7]])
    assert packer([a, b])["token_ids"].numpy().tolist() == [[CLS, 5, 6, SEP, 7, SEP]]
    assert packer([5, 6])["token_ids"].numpy().tolist() == [CLS, 5, 6, SEP, PAD, PAD]


def test_more_than_two_segments_is_an_error():
    packer = BertPacker(sequence_length=8, cls_token_id=CLS, sep_token_id=SEP)
    segment = tf.ragged.constant([[1]])
    with pytest.raises(ValueError, match="one or two segments"):
        packer((segment, segment, segment))


def test_runs_in_tf_data_map():
    packer = BertPacker(sequence_length=6, cls_token_id=CLS, sep_token_id=SEP)
    a = tf.ragged.constant([[1, 2, 3], [4]])
    b = tf.ragged.constant([[5], [6, 7, 8, 9]])
    dataset = tf.data.Dataset.from_tensor_slices((a, b)).batch(2).map(lambda x, y: packer((x, y)))
    outputs = next(iter(dataset))
    expected = [[CLS, 1, 2, SEP, 5, SEP], [CLS, 4, SEP, 6, 7, SEP]]
    assert outputs["token_ids"].numpy().tolist() == expected


def test_get_config_round_trip():
    packer = BertPacker(sequence_length=6, cls_token_id=2, sep_token_id=3, pad_token_id=1, name="p")
    config = packer.get_config()
    expected = {"sequence_length": 6, "cls_token_id": 2, "sep_token_id": 3, "pad_token_id": 1}
    assert {key: config[key] for key in expected} == expected
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(packer))
    assert isinstance(restored, BertPacker) and restored.get_config() == config
    segment = tf.ragged.constant([[7, 8]])
    assert restored(segment)["token_ids"].numpy().tolist() == [[2, 7, 8, 3, 1, 1]]
