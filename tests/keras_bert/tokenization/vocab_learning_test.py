"""Tests for `learn_vocabulary` on a slice of WikiText-2 and on a tf.data dataset."""

import gzip

import pytest
import tensorflow as tf

from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from keras_bert.tokenization.vocab import SPECIAL_TOKENS
from keras_bert.tokenization.vocab import load_vocabulary
from keras_bert.tokenization.vocab_learning import learn_vocabulary
from tests.data_paths import shared_data_dir

VOCABULARY_SIZE = 180


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The first 20 KB of WikiText-2 valid (whole lines), as a text file."""
    path = shared_data_dir() / "text" / "wikitext-2" / "valid.txt.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        text = f.read(20_000)
    text = text[: text.rindex("\n") + 1]
    path = tmp_path_factory.mktemp("corpus") / "train.txt"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def learned(corpus, tmp_path_factory):
    output = tmp_path_factory.mktemp("vocab") / "vocab.txt"
    vocabulary = learn_vocabulary([corpus], VOCABULARY_SIZE, output_file=output)
    return vocabulary, output


def test_special_tokens_come_first_in_google_order(learned):
    vocabulary, _ = learned
    assert vocabulary[:5] == list(SPECIAL_TOKENS) == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    assert not any(token in SPECIAL_TOKENS for token in vocabulary[5:])


def test_vocabulary_size_is_honoured(learned):
    vocabulary, _ = learned
    # The learner stops within 5% under the target.
    assert 0.95 * VOCABULARY_SIZE <= len(vocabulary) <= VOCABULARY_SIZE
    assert len(set(vocabulary)) == len(vocabulary)


def test_written_file_loads_and_matches(learned):
    vocabulary, output = learned
    assert load_vocabulary(output) == vocabulary


def test_learned_vocab_tokenizes_its_training_text_with_few_unknowns(learned, corpus):
    vocabulary, output = learned
    tokenizer = ReferenceTokenizer(output)
    tokens = tokenizer.tokenize(corpus.read_text(encoding="utf-8"))
    assert len(tokens) > 5000
    assert tokens.count("[UNK]") / len(tokens) < 0.001
    # Lower-cased like the tokenizer: no upper-case letters were learned.
    assert not any(any(c.isupper() for c in token) for token in vocabulary[5:])


def test_cased_learning_keeps_case_and_accents():
    lines = ["Éclair Paris Éclair Paris", "Zürich Café Zürich Café"] * 20
    vocabulary = learn_vocabulary(
        tf.data.Dataset.from_tensor_slices(lines), 60, do_lower_case=False
    )
    assert "É" in vocabulary and "Z" in vocabulary and "##ü" in vocabulary
    tokenizer = ReferenceTokenizer(vocabulary, do_lower_case=False)
    assert "[UNK]" not in tokenizer.tokenize(" ".join(lines))


def test_learns_from_a_batched_dataset_with_google_splitting():
    lines = tf.data.Dataset.from_tensor_slices(["The cat sat.", "The cats sat!"] * 20).batch(7)
    vocabulary = learn_vocabulary(lines, vocabulary_size=40)
    assert ReferenceTokenizer(vocabulary).tokenize("THE CATS SAT.") == ["the", "cats", "sat", "."]


def test_bad_arguments():
    with pytest.raises(ValueError, match="no room beyond the 5 special tokens"):
        learn_vocabulary(tf.data.Dataset.from_tensor_slices(["a"]), 5)
    with pytest.raises(FileNotFoundError, match="no such text file"):
        learn_vocabulary(["/nonexistent/corpus.txt"], 100)
    with pytest.raises(TypeError, match="dataset of strings"):
        learn_vocabulary(tf.data.Dataset.from_tensor_slices([1, 2]), 100)
