"""`pack_segments` / `encode_texts` (no TensorFlow): google's layout and truncation, token for
token, against the plain port in `google_features`; and the same arrays as `BertPacker`."""

import numpy as np
import pytest

from keras_bert import tensorflow_extra
from keras_bert.tokenization.packing import encode_texts
from keras_bert.tokenization.packing import pack_segments
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.keras_bert.tokenization.google_features import CLS
from tests.keras_bert.tokenization.google_features import SEP
from tests.keras_bert.tokenization.google_features import google_layout

HAS_TENSORFLOW = tensorflow_extra.has_tensorflow()

pytestmark = pytest.mark.backend_portable


def random_segments(rng, count, longest):
    return [rng.integers(1000, 2000, rng.integers(0, longest)).tolist() for _ in range(count)]


@pytest.mark.parametrize("pairs", [False, True])
def test_layout_and_truncation_match_google_on_random_lengths(pairs):
    rng = np.random.default_rng(0)
    first = random_segments(rng, 300, 20)
    second = random_segments(rng, 300, 20) if pairs else None
    for sequence_length in (3, 4, 9, 16, 40):
        packed = pack_segments(first, second, sequence_length=sequence_length,
                               cls_token_id=CLS, sep_token_id=SEP)
        for row in range(len(first)):
            token_ids, segment_ids, mask = google_layout(
                first[row], None if second is None else second[row], sequence_length)
            assert packed["token_ids"][row].tolist() == token_ids
            assert packed["segment_ids"][row].tolist() == segment_ids
            assert packed["padding_mask"][row].tolist() == mask
        assert all(value.dtype == np.int32 for value in packed.values())


def test_bad_arguments_are_one_line_errors():
    with pytest.raises(ValueError, match="2 first segments but 1 second segments"):
        pack_segments([[1], [2]], [[3]], sequence_length=8, cls_token_id=CLS, sep_token_id=SEP)
    with pytest.raises(ValueError, match="sequence_length=2 cannot hold the special tokens: use "
                                         "at least 3 for pairs"):
        pack_segments([[1]], [[3]], sequence_length=2, cls_token_id=CLS, sep_token_id=SEP)


def test_encode_texts_tokenizes_with_the_reference_tokenizer_and_the_vocabulary_specials():
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "what", "is", "bert", "?", "a", "model"]
    packed = encode_texts(ReferenceTokenizer(vocab), ["What is BERT?"], ["A model."],
                          sequence_length=12)
    # "." is not in the vocabulary: [UNK].
    assert packed["token_ids"].tolist() == [[2, 5, 6, 7, 8, 3, 9, 10, 1, 3, 0, 0]]
    assert packed["segment_ids"].tolist() == [[0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0]]


@pytest.mark.skipif(not HAS_TENSORFLOW, reason="BertPacker needs TensorFlow")
def test_the_same_arrays_as_bert_packer():
    import tensorflow as tf

    from keras_bert.tokenization.tf_packing import BertPacker

    rng = np.random.default_rng(1)
    first, second = random_segments(rng, 64, 30), random_segments(rng, 64, 30)
    packer = BertPacker(sequence_length=24, cls_token_id=CLS, sep_token_id=SEP)
    theirs = packer((tf.ragged.constant(first, tf.int32), tf.ragged.constant(second, tf.int32)))
    ours = pack_segments(first, second, sequence_length=24, cls_token_id=CLS, sep_token_id=SEP)
    for name, value in theirs.items():
        np.testing.assert_array_equal(ours[name], value.numpy())
