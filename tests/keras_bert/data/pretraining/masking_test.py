"""Masked-LM masking: golden cases, the 80/10/10 statistics on real text, whole-word masking."""

import collections
import gzip
import random

import numpy as np
import pytest

from keras_bert.data.pretraining.documents import tokenize_documents
from keras_bert.data.pretraining.masking import MaskingPolicy
from keras_bert.data.pretraining.masking import TokenMasker
from keras_bert.data.pretraining.text_to_documents import text_to_documents
from keras_bert.tokenization.bert_tokenizer import BertTokenizer
from keras_bert.tokenization.vocab import load_vocabulary
from tests.data_paths import shared_data_dir

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unused0]", "the", "dog", "bark", "##s", "##ed", "a"]
CLS, SEP, MASK = 2, 3, 4


def test_rates_one_and_zero_are_exact():
    tokens = [CLS, 6, 7, 8, 9, SEP, 11, 8, 10, SEP]
    all_masked = TokenMasker(VOCAB, MaskingPolicy(masked_lm_prob=1.0, mask_token_rate=1.0, random_token_rate=0.0))
    masked, positions, labels = all_masked(tokens, random.Random(0))
    assert masked == [CLS, MASK, MASK, MASK, MASK, SEP, MASK, MASK, MASK, SEP]
    assert positions == [1, 2, 3, 4, 6, 7, 8]
    assert labels == [6, 7, 8, 9, 11, 8, 10]
    unchanged = TokenMasker(VOCAB, MaskingPolicy(masked_lm_prob=1.0, mask_token_rate=0.0, random_token_rate=0.0))
    masked, positions, labels = unchanged(tokens, random.Random(0))
    assert masked == tokens and positions == [1, 2, 3, 4, 6, 7, 8]


def test_random_replacements_are_ordinary_tokens():
    masker = TokenMasker(VOCAB, MaskingPolicy(masked_lm_prob=1.0, mask_token_rate=0.0, random_token_rate=1.0))
    rng = random.Random(1)
    seen = set()
    for _ in range(200):
        masked, positions, _ = masker([CLS, 6, 7, 8, 9, SEP], rng)
        seen.update(masked[p] for p in positions)
    assert seen == {6, 7, 8, 9, 10, 11}  # never [PAD]/[UNK]/[CLS]/[SEP]/[MASK]/[unused0]


def test_cap_and_at_least_one():
    masker = TokenMasker(VOCAB, MaskingPolicy(masked_lm_prob=0.5, max_predictions_per_seq=2))
    _, positions, _ = masker([CLS] + [6] * 20 + [SEP], random.Random(0))
    assert len(positions) == 2
    _, positions, _ = TokenMasker(VOCAB)([CLS, 7, SEP], random.Random(0))
    assert positions == [1]
    assert TokenMasker(VOCAB)([CLS, SEP], random.Random(0)) == ([CLS, SEP], [], [])


def test_bad_policies_and_vocabularies_are_refused():
    with pytest.raises(ValueError, match="masked_lm_prob"):
        MaskingPolicy(masked_lm_prob=0.0)
    with pytest.raises(ValueError, match="sum to at most 1"):
        MaskingPolicy(mask_token_rate=0.8, random_token_rate=0.3)
    with pytest.raises(ValueError, match=r"\[MASK\]"):
        TokenMasker([t for t in VOCAB if t != "[MASK]"])


@pytest.fixture(scope="module")
def real_sequences():
    """Packed sequences of three real books, ~430k maskable tokens."""
    data = shared_data_dir()
    vocab = load_vocabulary(data / "vocab" / "bert-base-uncased-vocab.txt")
    documents = []
    for book in ("Austen_Pride_and_Prejudice", "Austen_Emma", "Austen_Persuasion"):
        text = gzip.open(data / "text" / "gutenberg" / f"{book}.txt.gz", "rt").read()
        documents += text_to_documents(text)
    documents = tokenize_documents(documents, BertTokenizer(vocab))
    ids = [t for document in documents for sentence in document for t in sentence]
    cls, sep = vocab.index("[CLS]"), vocab.index("[SEP]")
    sequences = [[cls] + ids[i : i + 60] + [sep] + ids[i + 60 : i + 125] + [sep] for i in range(0, len(ids) - 125, 125)]
    return vocab, sequences


def test_statistics_on_real_text(real_sequences):
    vocab, sequences = real_sequences
    special = {vocab.index(t) for t in ("[CLS]", "[SEP]", "[PAD]")}
    mask_id = vocab.index("[MASK]")
    masker = TokenMasker(vocab)
    rng = random.Random(7)
    counts = collections.Counter()
    for tokens in sequences * 2:  # two passes, different masks
        masked, positions, labels = masker(tokens, rng)
        assert labels == [tokens[p] for p in positions]  # labels are the original tokens
        assert not special.intersection(tokens[p] for p in positions)
        # Outside the selected positions nothing changes.
        unselected = set(range(len(tokens))) - set(positions)
        assert all(masked[i] == tokens[i] for i in unselected)
        counts["candidates"] += sum(t not in special for t in tokens)
        counts["selected"] += len(positions)
        for p in positions:
            counts["mask" if masked[p] == mask_id else "same" if masked[p] == tokens[p] else "random"] += 1
    assert counts["selected"] >= 100_000
    assert abs(counts["selected"] / counts["candidates"] - 0.15) <= 0.005
    for kind, rate in (("mask", 0.8), ("random", 0.1), ("same", 0.1)):
        assert abs(counts[kind] / counts["selected"] - rate) <= 0.01, (kind, counts)


def test_whole_word_masking_never_splits_a_word(real_sequences):
    vocab, sequences = real_sequences
    is_piece = np.array([t.startswith("##") for t in vocab])
    special = {vocab.index(t) for t in ("[CLS]", "[SEP]")}
    masker = TokenMasker(vocab, MaskingPolicy(do_whole_word_mask=True))
    rng = random.Random(3)
    multi_piece_words = 0
    for tokens in sequences:
        _, positions, _ = masker(tokens, rng)
        chosen = set(positions)
        for p in positions:
            # The word around p: back to its first piece, forward over its "##" pieces.
            start = p
            while is_piece[tokens[start]] and tokens[start - 1] not in special:
                start -= 1
            end = p + 1
            while end < len(tokens) and is_piece[tokens[end]]:
                end += 1
            assert set(range(start, end)) <= chosen, (tokens[start:end], positions)
            multi_piece_words += end - start > 1
    assert multi_piece_words > 100  # the check above was exercised


def count_replacements(masker, sequences, rng):
    """Selected / candidate tokens and the replacement kinds of the selected ones."""
    special = {masker.mask_token_id} | {i for i, s in enumerate(masker.unmaskable) if s}
    counts = collections.Counter()
    for tokens in sequences:
        masked, positions, labels = masker(tokens, rng)
        assert labels == [tokens[p] for p in positions]
        counts["candidates"] += sum(not masker.unmaskable[t] for t in tokens)
        counts["selected"] += len(positions)
        for p in positions:
            kind = "mask" if masked[p] == masker.mask_token_id else "same" if masked[p] == tokens[p] else "random"
            assert kind != "random" or masked[p] not in special
            counts[kind] += 1
    return counts


@pytest.mark.parametrize(
    "masked_lm_prob, mask_token_rate, random_token_rate",
    [(0.15, 1.0, 0.0), (0.15, 0.8, 0.0), (0.15, 0.8, 0.2), (0.3, 0.5, 0.25)],
)
def test_configured_splits_on_real_text(real_sequences, masked_lm_prob, mask_token_rate, random_token_rate):
    vocab, sequences = real_sequences
    policy = MaskingPolicy(masked_lm_prob, max_predictions_per_seq=60,
                           mask_token_rate=mask_token_rate, random_token_rate=random_token_rate)
    counts = count_replacements(TokenMasker(vocab, policy), sequences[::2], random.Random(11))
    assert counts["selected"] >= 30_000
    # 4+ standard deviations of a proportion over 30,000 draws.
    assert abs(counts["selected"] / counts["candidates"] - masked_lm_prob) <= 0.005
    same_rate = 1.0 - mask_token_rate - random_token_rate
    for kind, rate in (("mask", mask_token_rate), ("random", random_token_rate), ("same", same_rate)):
        assert abs(counts[kind] / counts["selected"] - rate) <= 0.012, (kind, counts)
        if rate == 0.0:
            assert counts[kind] == 0, (kind, counts)


def test_span_masking_selects_runs_of_whole_words(real_sequences):
    vocab, sequences = real_sequences
    is_piece = np.array([t.startswith("##") for t in vocab])
    sep = vocab.index("[SEP]")
    policy = MaskingPolicy(max_predictions_per_seq=20, max_span_length=10)
    masker = TokenMasker(vocab, policy)
    rng = random.Random(5)
    selected = candidates = runs = 0
    for tokens in sequences[::4]:
        _, positions, _ = masker(tokens, rng)
        chosen = set(positions)
        assert len(positions) <= 20
        for p in positions:
            assert tokens[p] != sep
            # A word's pieces go together: a "##" piece's predecessor is chosen too (unless the
            # sequence was cut inside the word, right after [CLS] or [SEP]).
            if is_piece[tokens[p]] and not masker.unmaskable[tokens[p - 1]]:
                assert p - 1 in chosen
        runs += sum(1 for p in positions if p - 1 not in chosen)
        selected += len(positions)
        candidates += sum(not masker.unmaskable[t] for t in tokens)
    # Spans fill the same 15 % budget (a few are dropped when no span fits it exactly) ...
    assert 0.13 <= selected / candidates <= 0.152
    # ... in runs far longer than token masking's (SpanBERT's clipped geometric: 3.8 words).
    assert selected / runs > 2.5, selected / runs


def test_span_policy_is_validated():
    with pytest.raises(ValueError, match="max_span_length must be >= 1"):
        MaskingPolicy(max_span_length=0)
    with pytest.raises(ValueError, match="span_length_p must be in"):
        MaskingPolicy(span_length_p=0.0)
