"""Tests for the in-graph `BertTokenizer`: exactness, inputs, errors, tf.data, saving, export."""

import os

import keras
import numpy as np
import pytest
import tensorflow as tf
import tensorflow_text as tf_text

from keras_bert.tokenization.bert_tokenizer import BertTokenizer
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.keras_bert.tokenization.hard_cases import HARD_CASES
from tests.keras_bert.tokenization.hard_cases import vocab_path

TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "qu", "##ick", "fox", "."]
TINY_VOCAB += ["é", "##é"]
HARD_TEXTS = [text for _, text in HARD_CASES]


@pytest.fixture(scope="module")
def uncased():
    return BertTokenizer(vocab_path("uncased"))


@pytest.mark.parametrize("casing", ["uncased", "cased"])
def test_matches_reference_on_hard_cases(casing):
    do_lower_case = casing == "uncased"
    reference = ReferenceTokenizer(vocab_path(casing), do_lower_case=do_lower_case)
    tokenizer = BertTokenizer(vocab_path(casing), do_lower_case=do_lower_case)
    outputs = tokenizer(HARD_TEXTS).to_list()
    for (label, text), ids in zip(HARD_CASES, outputs):
        assert ids == reference.encode(text), label


def test_known_ids(uncased):
    ids = uncased(["Hello, World!", "UNwant\u00e9d,running", ""])
    assert ids.dtype == tf.int32
    assert ids.to_list() == [[7592, 1010, 2088, 999], [18162, 1010, 2770], []]


def test_scalar_input_gives_dense_ids(uncased):
    ids = uncased(tf.constant("Hello, World!"))
    assert isinstance(ids, tf.Tensor) and ids.shape.rank == 1
    assert ids.numpy().tolist() == [7592, 1010, 2088, 999]


def test_python_and_numpy_inputs(uncased):
    assert uncased("hello").numpy().tolist() == [7592]
    assert uncased(["hello", "world"]).to_list() == [[7592], [2088]]
    assert uncased(np.array(["hello"])).to_list() == [[7592]]


def test_bad_input_types_and_ranks(uncased):
    with pytest.raises(TypeError, match="string tensors"):
        uncased(tf.constant([1, 2]))
    with pytest.raises(ValueError, match=r"scalar or a \[batch\]"):
        uncased(tf.constant([["a"]]))


def test_max_input_chars_per_word_counts_characters_not_bytes():
    tokenizer = BertTokenizer(TINY_VOCAB, do_lower_case=False, max_input_chars_per_word=3)
    # "ééé" is 3 characters but 6 bytes: tokenized; "éééé" (4 characters) is one [UNK].
    assert tokenizer(["ééé", "éééé", "quick"]).to_list() == [[10, 11, 11], [1], [1]]
    long_words = BertTokenizer(TINY_VOCAB, do_lower_case=False)(["é" * 200, "é" * 201]).to_list()
    assert long_words == [[10] + [11] * 199, [1]]


def test_invalid_utf8_raises_clear_error_eagerly(uncased):
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"not valid UTF-8.*latin-1"):
        uncased(tf.constant([b"fine", b"caf\xe9"]))


def test_invalid_utf8_raises_clear_error_in_graph(uncased):
    tokenize = tf.function(uncased, input_signature=[tf.TensorSpec([None], tf.string)])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"not valid UTF-8[^\]]*\] \[1\]"):
        tokenize(tf.constant([b"fine", b"\xed\xa0\x80 surrogate"]))
    assert tokenize(tf.constant(["fine"])).to_list() == [[2986]]


def test_runs_in_tf_data_map(uncased):
    texts = ["Hello, World!", "the quick fox", "", "ΟΔΟΣ."]
    expected = [ReferenceTokenizer(vocab_path("uncased")).encode(t) for t in texts]
    batched = tf.data.Dataset.from_tensor_slices(texts).batch(3).map(uncased)
    assert [row for batch in batched for row in batch.to_list()] == expected
    unbatched = tf.data.Dataset.from_tensor_slices(texts).map(uncased)
    assert [ids.numpy().tolist() for ids in unbatched] == expected


def test_vocabulary_accessors():
    tokenizer = BertTokenizer(TINY_VOCAB)
    assert tokenizer.vocabulary_size() == len(TINY_VOCAB)
    assert tokenizer.get_vocabulary() == TINY_VOCAB
    assert tokenizer.token_to_id("fox") == 8 and tokenizer.id_to_token(8) == "fox"
    with pytest.raises(ValueError, match="not in the vocabulary"):
        tokenizer.token_to_id("dog")
    with pytest.raises(ValueError, match="outside the vocabulary"):
        tokenizer.id_to_token(len(TINY_VOCAB))


def test_get_config_round_trip():
    tokenizer = BertTokenizer(
        TINY_VOCAB, do_lower_case=False, max_input_chars_per_word=7, name="tok"
    )
    config = tokenizer.get_config()
    assert config["vocabulary"] == TINY_VOCAB
    assert (config["do_lower_case"], config["max_input_chars_per_word"]) == (False, 7)
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(tokenizer))
    assert isinstance(restored, BertTokenizer) and restored.get_config() == config
    assert restored(["The quick FOX"]).to_list() == tokenizer(["The quick FOX"]).to_list()


def test_config_saved_with_the_old_lowercase_key_still_loads():
    # Before `do_lower_case` took google's name the argument was `lowercase`.
    serialized = keras.saving.serialize_keras_object(BertTokenizer(TINY_VOCAB, do_lower_case=False))
    serialized["config"]["lowercase"] = serialized["config"].pop("do_lower_case")
    restored = keras.saving.deserialize_keras_object(serialized)
    assert restored.do_lower_case is False and "lowercase" not in restored.get_config()


def test_keras_file_round_trip(tmp_path):
    inputs = keras.Input(shape=(), dtype="string")
    model = keras.Model(inputs, BertTokenizer(vocab_path("uncased"))(inputs))
    model.save(tmp_path / "tokenizer.keras")
    restored = keras.saving.load_model(tmp_path / "tokenizer.keras")
    texts = tf.constant(["Hello, World!", "ΟΔΟΣ straße"])
    assert restored(texts).to_list() == model(texts).to_list()


def test_saved_model_round_trip(tmp_path):
    tokenizer = BertTokenizer(TINY_VOCAB)
    archive = keras.export.ExportArchive()
    archive.track(tokenizer)
    archive.add_endpoint(
        "tokenize", tokenizer, input_signature=[tf.TensorSpec([None], tf.string)]
    )
    archive.write_out(os.fspath(tmp_path / "saved_model"), verbose=False)
    restored = tf.saved_model.load(os.fspath(tmp_path / "saved_model"))
    assert restored.tokenize(tf.constant(["The quick fox.", ""])).to_list() == [[5, 6, 7, 8, 9], []]


def test_stock_tf_text_normalization_is_not_exact():
    # Why the normalization is hand-built: tf_text's BERT normalizers use ICU (NFKC case
    # folding), which disagrees with google's Python on these inputs.
    vocab = ReferenceTokenizer(vocab_path("uncased")).vocabulary
    stock = tf_text.FastBertTokenizer(
        vocab, token_out_type=tf.int32, lower_case_nfd_strip_accents=True
    )
    ours = BertTokenizer(vocab)
    texts = ["2½ miles", "straße", "ΟΔΟΣ"]
    stock_ids, our_ids = stock.tokenize(texts).to_list(), ours(texts).to_list()
    assert all(s != o for s, o in zip(stock_ids, our_ids))
    reference = ReferenceTokenizer(vocab)
    assert our_ids == [reference.encode(text) for text in texts]
