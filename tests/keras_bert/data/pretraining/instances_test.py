"""Sentence-pair instances: NSP balance, NotNext partners from other documents, lengths, bad input."""

import gzip
import random

import pytest

from keras_bert.data.pretraining.documents import tokenize_documents
from keras_bert.data.pretraining.masking import MaskingPolicy
from keras_bert.data.pretraining.masking import TokenMasker
from keras_bert.data.pretraining.instances import create_packed_instances
from keras_bert.data.pretraining.instances import create_training_instances
from keras_bert.data.pretraining.text_to_documents import text_to_documents
from keras_bert.tokenization.bert_tokenizer import BertTokenizer
from keras_bert.tokenization.vocab import load_vocabulary
from tests.data_paths import shared_data_dir

CLS, SEP = 2, 3


def numbered_documents(num_documents=12, seed=0):
    """Token ids that encode (document, running position), so provenance can be read back."""
    rng = random.Random(seed)
    vocab_size = 5 + num_documents * 1000
    documents = []
    for d in range(num_documents):
        ids = iter(range(5 + d * 1000, 5 + (d + 1) * 1000))
        documents.append([[next(ids) for _ in range(rng.randint(1, 30))] for _ in range(rng.randint(1, 25))])
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"t{i}" for i in range(5, vocab_size)]
    return documents, vocab


def unmasked(instance):
    tokens = list(instance.token_ids)
    for p, label in zip(instance.masked_lm_positions, instance.masked_lm_labels):
        tokens[p] = label
    return tokens


def test_pairs_come_from_where_their_label_says():
    documents, vocab = numbered_documents()
    masker = TokenMasker(vocab, MaskingPolicy(masked_lm_prob=0.01, max_predictions_per_seq=1))
    instances = create_training_instances(
        documents, masker, CLS, SEP, max_seq_length=40, dupe_factor=3, rng=random.Random(1)
    )
    assert len(instances) > 100
    for instance in instances:
        tokens = unmasked(instance)
        assert len(tokens) <= 40 and tokens[0] == CLS and tokens[-1] == SEP
        sep = tokens.index(SEP)
        a, b = tokens[1:sep], tokens[sep + 1 : -1]
        assert a and b
        assert list(instance.segment_ids) == [0] * (sep + 1) + [1] * (len(b) + 1)
        doc_a, doc_b = {(t - 5) // 1000 for t in a}, {(t - 5) // 1000 for t in b}
        assert len(doc_a) == 1 and len(doc_b) == 1
        if instance.is_random_next:
            assert doc_a != doc_b  # NotNext partners always come from another document
        else:
            assert doc_a == doc_b and max(a) < min(b)  # B follows A in the same document


def test_nsp_is_balanced_on_real_text():
    data = shared_data_dir()
    vocab = load_vocabulary(data / "vocab" / "bert-base-uncased-vocab.txt")
    documents = []
    for book in ("Dickens_A_Christmas_Carol", "Austen_Persuasion", "Conrad_Heart_of_Darkness"):
        documents += text_to_documents(gzip.open(data / "text" / "gutenberg" / f"{book}.txt.gz", "rt").read())
    documents = tokenize_documents(documents, BertTokenizer(vocab))
    instances = create_training_instances(
        documents, TokenMasker(vocab), vocab.index("[CLS]"), vocab.index("[SEP]"),
        max_seq_length=128, dupe_factor=10, rng=random.Random(2),
    )
    assert len(instances) > 20_000  # the 1% tolerance is > 3 standard errors
    is_next = sum(not i.is_random_next for i in instances) / len(instances)
    assert abs(is_next - 0.5) <= 0.01, is_next
    assert max(len(i.token_ids) for i in instances) == 128
    short = sum(len(i.token_ids) < 100 for i in instances) / len(instances)
    assert 0.05 < short < 0.3  # short_seq_prob=0.1 plus documents' ends


def test_one_sentence_documents_and_long_lines_are_handled():
    documents = [[[10] * 300], [[11, 12, 13]], [[14] * 50, [15] * 50]]
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"t{i}" for i in range(5, 16)]
    instances = create_training_instances(
        documents, TokenMasker(vocab), CLS, SEP, max_seq_length=32, dupe_factor=20, rng=random.Random(0)
    )
    assert all(len(i.token_ids) <= 32 for i in instances)
    assert {i.is_random_next for i in instances} == {True, False}


def test_bad_input_is_refused_clearly():
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a"]
    with pytest.raises(ValueError, match="at least 2 non-empty documents"):
        create_training_instances([[[5, 5]], [[]]], TokenMasker(vocab), CLS, SEP)
    with pytest.raises(ValueError, match="max_seq_length"):
        create_training_instances([[[5]], [[5]]], TokenMasker(vocab), CLS, SEP, max_seq_length=4)


def test_packed_rows_are_full_unpadded_and_mark_document_boundaries():
    rng = random.Random(1)  # 40 short documents, ids numbered (document, position)
    documents = [[[5 + d * 1000 + p for p in range(k, k + rng.randint(1, 6))] for k in (0, 10, 20)[
        :rng.randint(1, 3)]] for d in range(40)]
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"t{i}" for i in range(5, 40005)]
    masker = TokenMasker(vocab, MaskingPolicy(masked_lm_prob=0.15, max_predictions_per_seq=8))
    length = 33
    rows = create_packed_instances(documents, masker, CLS, SEP, max_seq_length=length,
                                   dupe_factor=2, rng=random.Random(4))
    flat = [[t for sentence in doc for t in sentence] for doc in documents]
    total = sum(len(d) + 1 for d in flat)  # each document and its [SEP]
    # Each pass drops only its stream's last partial row.
    assert len(rows) == 2 * (total // (length - 1))
    for row in rows:
        assert len(row.token_ids) == length and row.segment_ids == (0,) * length
        assert row.is_random_next is None and row.token_ids[0] == CLS
        assert CLS not in row.token_ids[1:] and SEP not in row.masked_lm_labels
        assert 1 <= len(row.masked_lm_positions) <= 8
    # The masking is not what is tested here: with the targets put back, the rows are runs of
    # whole documents, a [SEP] after each, in one order per pass. Rows are shuffled, so rebuild
    # each pass's stream from the rows' first tokens: every document is numbered, and its tokens
    # carry (document, position), so a row's place in the stream is readable from its content.
    pieces = [unmasked(row)[1:] for row in rows]
    seen = {}
    for piece in pieces:
        runs, current = [], []
        for token in piece:
            if token == SEP:
                runs.append(current)
                current = []
            else:
                current.append(token)
        for run in runs[1:]:  # runs between two [SEP]s are whole documents
            assert run in flat, "a run between two [SEP]s is not a whole document"
            seen[flat.index(run)] = seen.get(flat.index(run), 0) + 1
        for run in runs[:1] + [current]:  # a row's edges: a document's end or its start
            if run:
                doc = flat[(run[0] - 5) // 1000]
                start = doc.index(run[0])
                assert doc[start:start + len(run)] == run, "a row cut a document out of order"
    # Documents shorter than a row appear whole twice (once per pass) at most.
    assert seen and max(seen.values()) <= 2


def test_packing_refuses_what_cannot_make_a_row():
    documents, vocab = numbered_documents(num_documents=2, seed=0)
    masker = TokenMasker(vocab, MaskingPolicy())
    with pytest.raises(ValueError, match="fewer than 9999 tokens"):
        create_packed_instances(documents, masker, CLS, SEP, max_seq_length=10000)
    with pytest.raises(ValueError, match="max_seq_length must be >= 2"):
        create_packed_instances(documents, masker, CLS, SEP, max_seq_length=1)
    with pytest.raises(ValueError, match="dupe_factor must be >= 1"):
        create_packed_instances(documents, masker, CLS, SEP, dupe_factor=0)
