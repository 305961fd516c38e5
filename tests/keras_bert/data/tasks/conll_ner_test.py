"""CoNLL reading and first-sub-token label alignment."""

import numpy as np
import pytest

from keras_bert.data.tasks.conll_ner import CONLL2003_LABELS
from keras_bert.data.tasks.conll_ner import ConllFormatError
from keras_bert.data.tasks.conll_ner import convert_ner_sentences
from keras_bert.data.tasks.conll_ner import read_conll
from keras_bert.data.tasks.conll_ner import word_predictions
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.data_paths import shared_data_dir

TEXT = """-DOCSTART- -X- -X- O

EU NNP B-NP B-ORG
rejects VBZ B-VP O
Kazakhstani JJ B-NP B-MISC

Peter NNP B-NP B-PER
Blackburn NNP I-NP I-PER
"""


@pytest.fixture(scope="module")
def tokenizer():
    return ReferenceTokenizer(shared_data_dir() / "vocab" / "bert-base-cased-vocab.txt", False)


def test_reads_sentences_and_skips_docstart(tmp_path):
    (tmp_path / "a.txt").write_text(TEXT)
    sentences = read_conll(tmp_path / "a.txt")
    assert [s.words for s in sentences] == [["EU", "rejects", "Kazakhstani"], ["Peter", "Blackburn"]]
    assert sentences[1].tags == ["B-PER", "I-PER"] and sentences[1].line == 7


def test_real_conll2003_test_set_counts():
    sentences = read_conll(shared_data_dir() / "conll2003" / "test.txt.gz")
    assert len(sentences) == 3453


@pytest.mark.parametrize("bad, message", [
    ("EU NNP B-ORG\n", r"a.txt:1: 3 columns \('EU NNP B-ORG'\), expected 4"),
    ("EU NNP B-NP B-ORGANIZATION\n", r"a.txt:1: tag 'B-ORGANIZATION' is not one of"),
])
def test_bad_lines_name_file_and_line(tmp_path, bad, message):
    (tmp_path / "a.txt").write_text(bad)
    with pytest.raises(ConllFormatError, match=message):
        read_conll(tmp_path / "a.txt")


def test_labels_sit_on_first_pieces_and_predictions_map_back(tmp_path, tokenizer):
    (tmp_path / "a.txt").write_text(TEXT)
    sentences = read_conll(tmp_path / "a.txt")
    features = convert_ner_sentences(sentences, tokenizer, CONLL2003_LABELS, max_seq_length=8)
    pieces = [tokenizer.tokenize(w) for w in sentences[0].words]
    assert [len(p) for p in pieces] == [1, 1, 2]  # Kazakhstan ##i
    row = features.label_ids[0]
    # [CLS] EU rejects Kazakhstan ##i [SEP]: labels on EU, rejects, Kazakhstan; -1 elsewhere.
    assert row.tolist() == [-1, 3, 0, 7, -1, -1, -1, -1]
    assert features.word_positions[0] == [1, 2, 3]
    assert features.sample_weight()[0].tolist() == [0, 1, 1, 1, 0, 0, 0, 0]
    logits = np.zeros((2, 8, len(CONLL2003_LABELS)))
    logits[0, [1, 2, 3], [3, 0, 7]] = 1.0
    logits[1, [1, 2], [1, 2]] = 1.0
    assert word_predictions(features, logits, CONLL2003_LABELS) == [
        ["B-ORG", "O", "B-MISC"], ["B-PER", "I-PER"]
    ]


def test_words_past_max_seq_length_are_cut_and_predicted_o(tmp_path, tokenizer):
    (tmp_path / "a.txt").write_text(TEXT)
    sentences = read_conll(tmp_path / "a.txt")
    features = convert_ner_sentences(sentences, tokenizer, CONLL2003_LABELS, max_seq_length=4)
    assert features.word_positions[0] == [1, 2, None]  # Kazakhstani's 2 pieces do not fit
    assert features.num_truncated == 1
    assert features.token_ids[0, 3] == tokenizer.token_to_id("[SEP]")
    logits = np.zeros((2, 4, len(CONLL2003_LABELS)))
    assert word_predictions(features, logits, CONLL2003_LABELS)[0] == ["O", "O", "O"]
