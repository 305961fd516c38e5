"""Tests for reading, checking and writing `vocab.txt` files, and their error messages."""

import json
import zipfile

import pytest
import tensorflow as tf

from keras_bert.tokenization.vocab import SPECIAL_TOKENS
from keras_bert.tokenization.vocab import load_vocabulary
from keras_bert.tokenization.vocab import special_token_ids
from keras_bert.tokenization.vocab import write_vocabulary
from tests.keras_bert.tokenization.hard_cases import vocab_path

TINY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "##s", "é", "中"]
FIX = "[Pp]ass the vocab.txt that came with the checkpoint"


def test_google_vocabs_load_in_line_order():
    uncased = load_vocabulary(vocab_path("uncased"))
    cased = load_vocabulary(vocab_path("cased"))
    assert (len(uncased), len(cased)) == (30522, 28996)
    assert uncased[:2] == ["[PAD]", "[unused0]"] and uncased[1996] == "the"
    assert cased[:2] == ["[PAD]", "[unused1]"]


def test_special_token_ids():
    expected = {"[PAD]": 0, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "[MASK]": 103}
    assert special_token_ids(vocab_path("uncased")) == expected
    assert special_token_ids(vocab_path("cased")) == expected
    assert special_token_ids(TINY) == {t: i for i, t in enumerate(SPECIAL_TOKENS)}


def test_write_then_load_round_trips(tmp_path):
    path = write_vocabulary(TINY, tmp_path / "vocab.txt")
    assert path.read_bytes() == ("\n".join(TINY) + "\n").encode("utf-8")
    assert load_vocabulary(path) == TINY
    assert load_vocabulary(str(path)) == TINY


def test_windows_line_ends_and_missing_final_newline_load(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes("\r\n".join(TINY).encode("utf-8"))
    assert load_vocabulary(path) == TINY


def test_list_input_is_checked():
    assert load_vocabulary(tuple(TINY)) == TINY
    with pytest.raises(ValueError, match=r"duplicate token 'the' at indexs? 5 and 9"):
        load_vocabulary(TINY + ["the"])
    with pytest.raises(TypeError, match="str tokens"):
        load_vocabulary(TINY + [7])


def test_missing_file_says_what_to_pass(tmp_path):
    with pytest.raises(FileNotFoundError, match=f"does not exist.*{FIX}"):
        load_vocabulary(tmp_path / "nope.txt")


def test_folder_lists_the_vocab_files_inside(tmp_path):
    write_vocabulary(TINY, tmp_path / "vocab.txt")
    with pytest.raises(IsADirectoryError, match=r"is a folder.*\['vocab.txt'\]"):
        load_vocabulary(tmp_path)


def test_empty_file(tmp_path):
    (tmp_path / "vocab.txt").write_text("\n\n")
    with pytest.raises(ValueError, match=f"is empty.*{FIX}"):
        load_vocabulary(tmp_path / "vocab.txt")


def test_bert_config_json_is_recognized(tmp_path):
    path = tmp_path / "bert_config.json"
    path.write_text(json.dumps({"hidden_size": 768, "num_hidden_layers": 12, "vocab_size": 30522}))
    with pytest.raises(ValueError, match=f"model config.*{FIX}"):
        load_vocabulary(path)


def test_hugging_face_tokenizer_json_is_recognized(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps({"version": "1.0", "model": {"type": "WordPiece", "vocab": {}}}))
    with pytest.raises(ValueError, match=f"Hugging Face `tokenizer.json`.*{FIX}"):
        load_vocabulary(path)


def test_tensorflow_checkpoint_files_are_recognized_as_binary(tmp_path):
    prefix = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).write(str(tmp_path / "bert_model.ckpt"))
    for suffix in (".index", ".data-00000-of-00001"):
        with pytest.raises(ValueError, match=f"not a vocab.txt: it is a binary file.*{FIX}"):
            load_vocabulary(prefix + suffix)


def test_keras_zip_and_hdf5_files_are_recognized(tmp_path):
    with zipfile.ZipFile(tmp_path / "model.keras", "w") as archive:
        archive.writestr("config.json", "{}")
    with pytest.raises(ValueError, match=f"zip archive.*`.keras` model.*{FIX}"):
        load_vocabulary(tmp_path / "model.keras")
    (tmp_path / "model.h5").write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(64))
    with pytest.raises(ValueError, match=f"HDF5.*{FIX}"):
        load_vocabulary(tmp_path / "model.h5")


def test_non_utf8_file_names_the_byte_offset(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes("[PAD]\n[UNK]\ncaf".encode("utf-8") + b"\xe9\n")
    with pytest.raises(ValueError, match=r"not valid UTF-8: byte offset 15 \(line 3\)"):
        load_vocabulary(path)


def test_duplicate_token_names_both_lines(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(TINY + ["##s"]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"duplicate token '##s' at lines 7 and 10"):
        load_vocabulary(path)


def test_missing_special_tokens_are_named(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("[PAD]\n[UNK]\nthe\ncat\n[SEP]\n", encoding="utf-8")
    missing = r"missing the BERT special token\(s\) \[CLS\], \[MASK\]"
    with pytest.raises(ValueError, match=f"{missing}.*{FIX}"):
        load_vocabulary(path)


def test_token_count_file_is_rejected(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("[PAD] 0\n[UNK] 0\nthe 1042\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 1 \('\[PAD\] 0'\) contains whitespace"):
        load_vocabulary(path)


def test_blank_line_is_rejected(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(TINY[:3] + [""] + TINY[3:]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 4 is empty"):
        load_vocabulary(path)


def test_wrong_argument_type():
    with pytest.raises(TypeError, match="path of a vocab.txt or a list of tokens"):
        load_vocabulary({"[PAD]": 0})
