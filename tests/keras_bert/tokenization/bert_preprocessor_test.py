"""Tests for `BertPreprocessor`: text (pairs) -> model inputs, vs google's features; saving."""

import os

import keras
import pytest
import tensorflow as tf

from keras_bert.tokenization.bert_preprocessor import BertPreprocessor
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.keras_bert.tokenization.hard_cases import vocab_path
from tests.keras_bert.tokenization.google_features import google_layout

QUESTIONS = ["Who wrote Hamlet?", "Où est la café?", ""]
PASSAGES = ["Hamlet is a tragedy written by William Shakespeare.", "À Paris.", "ΟΔΟΣ " * 20]


@pytest.fixture(scope="module")
def reference():
    return ReferenceTokenizer(vocab_path("uncased"))


@pytest.fixture(scope="module")
def preprocessor():
    return BertPreprocessor(vocab_path("uncased"), sequence_length=16)


def test_pairs_match_google_features(preprocessor, reference):
    outputs = preprocessor((tf.constant(QUESTIONS), tf.constant(PASSAGES)))
    for i, (question, passage) in enumerate(zip(QUESTIONS, PASSAGES)):
        ids_a, ids_b = reference.encode(question), reference.encode(passage)
        tokens, segments, mask = google_layout(ids_a, ids_b, 16)
        assert outputs["token_ids"][i].numpy().tolist() == tokens
        assert outputs["segment_ids"][i].numpy().tolist() == segments
        assert outputs["padding_mask"][i].numpy().tolist() == mask


def test_single_texts_match_google_features(preprocessor, reference):
    outputs = preprocessor(PASSAGES)
    for i, passage in enumerate(PASSAGES):
        tokens, segments, mask = google_layout(reference.encode(passage), None, 16)
        assert outputs["token_ids"][i].numpy().tolist() == tokens
        assert outputs["segment_ids"][i].numpy().tolist() == segments
        assert outputs["padding_mask"][i].numpy().tolist() == mask


def test_scalar_text_gives_unbatched_features(preprocessor):
    outputs = preprocessor("Hello, World!")
    assert outputs["token_ids"].numpy().tolist()[:6] == [101, 7592, 1010, 2088, 999, 102]
    assert outputs["token_ids"].shape == (16,)


def test_a_list_is_a_batch_not_a_pair(preprocessor):
    outputs = preprocessor(["first text", "second text"])
    assert outputs["token_ids"].shape == (2, 16)
    assert outputs["segment_ids"].numpy().max() == 0


def test_special_ids_come_from_the_vocabulary():
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "who", "ran", "?", "bo"]
    outputs = BertPreprocessor(vocab, sequence_length=10)((["Who ran?"], ["Bo ran"]))
    assert outputs["token_ids"].numpy().tolist() == [[2, 5, 6, 7, 3, 8, 6, 3, 0, 0]]


def test_three_segments_is_an_error(preprocessor):
    with pytest.raises(ValueError, match="one text or a pair"):
        preprocessor(("a", "b", "c"))


def test_runs_in_tf_data_map(preprocessor, reference):
    dataset = tf.data.Dataset.from_tensor_slices((QUESTIONS, PASSAGES)).batch(2)
    dataset = dataset.map(lambda question, passage: preprocessor((question, passage)))
    token_ids = [row for batch in dataset for row in batch["token_ids"].numpy().tolist()]
    expected = [
        google_layout(reference.encode(q), reference.encode(p), 16)[0]
        for q, p in zip(QUESTIONS, PASSAGES)
    ]
    assert token_ids == expected


def test_get_config_round_trip():
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hi"]
    args = {"sequence_length": 5, "do_lower_case": False, "max_input_chars_per_word": 9}
    preprocessor = BertPreprocessor(vocab, **args)
    config = preprocessor.get_config()
    expected = {"vocabulary": vocab, **args}
    assert {key: config[key] for key in expected} == expected
    serialized = keras.saving.serialize_keras_object(preprocessor)
    restored = keras.saving.deserialize_keras_object(serialized)
    assert restored.get_config() == config
    assert restored("hi hi")["token_ids"].numpy().tolist() == [2, 5, 5, 3, 0]


def test_config_saved_with_the_old_lowercase_key_still_loads():
    # Before `do_lower_case` took google's name the argument was `lowercase`.
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hi"]
    serialized = keras.saving.serialize_keras_object(
        BertPreprocessor(vocab, sequence_length=5, do_lower_case=False)
    )
    serialized["config"]["lowercase"] = serialized["config"].pop("do_lower_case")
    restored = keras.saving.deserialize_keras_object(serialized)
    assert restored.do_lower_case is False and restored.tokenizer.do_lower_case is False


def test_keras_file_round_trip_in_a_functional_model(tmp_path):
    text_a = keras.Input(shape=(), dtype="string", name="question")
    text_b = keras.Input(shape=(), dtype="string", name="passage")
    preprocessor = BertPreprocessor(vocab_path("uncased"), sequence_length=12)
    model = keras.Model([text_a, text_b], preprocessor((text_a, text_b)))
    model.save(tmp_path / "preprocessor.keras")
    restored = keras.saving.load_model(tmp_path / "preprocessor.keras")
    inputs = [tf.constant(QUESTIONS), tf.constant(PASSAGES)]
    expected, got = model(inputs), restored(inputs)
    for name in ("token_ids", "segment_ids", "padding_mask"):
        assert got[name].numpy().tolist() == expected[name].numpy().tolist()


@pytest.mark.large
def test_saved_model_endpoint(tmp_path):
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "who", "ran", "?", "bo"]
    preprocessor = BertPreprocessor(vocab, sequence_length=8)
    archive = keras.export.ExportArchive()
    archive.track(preprocessor)
    spec = tf.TensorSpec([None], tf.string)
    archive.add_endpoint(
        "preprocess", lambda a, b: preprocessor((a, b)), input_signature=[spec, spec]
    )
    archive.write_out(os.fspath(tmp_path / "saved_model"), verbose=False)
    restored = tf.saved_model.load(os.fspath(tmp_path / "saved_model"))
    outputs = restored.preprocess(tf.constant(["Who ran?"]), tf.constant(["Bo ran"]))
    assert outputs["token_ids"].numpy().tolist() == [[2, 5, 6, 7, 3, 8, 6, 3]]
    assert outputs["segment_ids"].numpy().tolist() == [[0, 0, 0, 0, 0, 1, 1, 1]]


@pytest.mark.large
def test_model_export(tmp_path):
    text = keras.Input(shape=(), dtype="string")
    model = keras.Model(text, BertPreprocessor(vocab_path("uncased"), sequence_length=8)(text))
    model.export(os.fspath(tmp_path / "exported"), format="tf_saved_model", verbose=False)
    restored = tf.saved_model.load(os.fspath(tmp_path / "exported"))
    outputs = restored.serve(tf.constant(["Hello, World!"]))
    assert outputs["token_ids"].numpy().tolist() == [[101, 7592, 1010, 2088, 999, 102, 0, 0]]
