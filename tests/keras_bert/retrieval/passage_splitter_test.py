"""`PassageSplitter` on real SQuAD articles with the reader's vocabulary: passages cover all the
text, hold at most `max_tokens` WordPiece tokens (counted here on each passage's own text), share at
most `overlap_tokens` with the next, and cut inside a sentence only when it alone is over the cap."""

import gzip
import json
import os

import pytest

from keras_bert.retrieval.passage_splitter import PassageSplitter
from keras_bert.retrieval.sentence_splitter import split_sentences
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.data_paths import shared_data_dir

pytestmark = pytest.mark.backend_portable

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
VOCAB = os.path.join(ROOT, "apps", "models", "vocab.txt")


@pytest.fixture(scope="module")
def tokenizer():
    return ReferenceTokenizer(VOCAB)


@pytest.fixture(scope="module")
def articles():
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt") as f:
        data = json.load(f)["data"]
    # Super_Bowl_50, Warsaw, and the dev article with the longest sentence (Economic_inequality).
    return ["\n\n".join(p["context"] for p in a["paragraphs"]) for a in (data[0], data[1], data[37])]


def check_properties(document, passages, tokenizer, max_tokens, overlap_tokens):
    count = lambda text: len(tokenizer.tokenize(text))  # noqa: E731
    sentences = split_sentences(document)
    starts, ends = {s for s, _ in sentences}, {e for _, e in sentences}
    overlong = [(s, e) for s, e in sentences if count(document[s:e]) > max_tokens]
    inside_overlong = lambda i: any(s < i < e for s, e in overlong)  # noqa: E731
    covered = [False] * len(document)
    for p in passages:
        assert p.text == document[p.start:p.end]
        assert p.num_tokens == count(p.text) <= max_tokens
        for i in range(p.start, p.end):
            covered[i] = True
        # Whole sentences, unless the cut is inside a sentence that alone is over the cap, and
        # then between words.
        for edge, whole in ((p.start, starts), (p.end, ends)):
            assert edge in whole or (inside_overlong(edge) and (
                document[edge - 1].isspace() or document[edge].isspace())), (edge, p.text[:60])
    assert all(c or ch.isspace() for c, ch in zip(covered, document))
    for first, second in zip(passages, passages[1:]):
        assert first.start < second.start and first.end < second.end  # onward, with new text
        assert document[first.end:second.start].strip() == ""  # overlapping or adjacent
        shared = document[second.start:first.end] if second.start < first.end else ""
        assert count(shared) <= overlap_tokens
        # Greedy: the next whole sentence would not have fit.
        following = [(s, e) for s, e in sentences if s >= first.end]
        if following and not inside_overlong(first.end) and following[0] not in overlong:
            assert count(document[first.start:following[0][1]]) > max_tokens
    return overlong


@pytest.mark.parametrize("max_tokens, overlap_tokens", [(254, 64), (120, 30), (60, 0)])
def test_properties_on_squad_articles(tokenizer, articles, max_tokens, overlap_tokens):
    splitter = PassageSplitter(tokenizer, max_tokens=max_tokens, overlap_tokens=overlap_tokens)
    overlong = 0
    for document in articles:
        passages = splitter(document)
        overlong += len(check_properties(document, passages, tokenizer, max_tokens,
                                         overlap_tokens))
    if max_tokens == 60:
        assert overlong > 0  # the cut inside a sentence was exercised


def test_defaults_fit_the_reader_and_the_embedder(tokenizer):
    splitter = PassageSplitter(tokenizer)
    # 384 - 64 (question) - 3 ([CLS], [SEP], [SEP]) = 317 for the reader; 256 - 2 for the
    # embedder: the smaller.
    assert (splitter.max_tokens, splitter.overlap_tokens) == (254, 64)


def test_worked_example(tokenizer):
    splitter = PassageSplitter(tokenizer, max_tokens=8, overlap_tokens=4)
    document = "One two three. Four five. Six seven eight nine ten. End."
    # Sentences of 4, 3, 6 and 2 tokens ("." is one). Passage 1: the first two (7: the third
    # would make 13). Sharing "Four five." (3 <= 4) would leave 3 + 6 = 9 > 8 for passage 2, so
    # passage 2 starts after it: "Six seven eight nine ten. End." (8).
    assert [(p.text, p.num_tokens) for p in splitter(document)] == [
        ("One two three. Four five.", 7), ("Six seven eight nine ten. End.", 8)]
    # With a cap of 10, passage 2 repeats "Four five." (3 <= 4 shared, 3 + 6 = 9 <= 10);
    # passage 3 cannot share "Six ... ten." (6 > 4 tokens), so it is "End." alone.
    splitter = PassageSplitter(tokenizer, max_tokens=10, overlap_tokens=4)
    assert [p.text for p in splitter(document)] == [
        "One two three. Four five.", "Four five. Six seven eight nine ten.", "End."]


def test_a_sentence_over_the_cap_is_cut_between_words(tokenizer):
    splitter = PassageSplitter(tokenizer, max_tokens=6, overlap_tokens=2)
    document = "Short one. " + " ".join(["word"] * 13) + "."
    passages = splitter(document)
    assert all(p.num_tokens <= 6 for p in passages)
    # "Short one." (3) and the first run of the 14-token sentence, cut into runs of at most
    # overlap_tokens = 2 tokens ("word word", ..., "word."): 3 + 2 + 2 = 7 would pass the cap.
    assert passages[0].text == "Short one. word word"
    assert passages[-1].text.endswith("word word word.")


def test_one_word_over_the_cap_is_cut_by_characters(tokenizer):
    splitter = PassageSplitter(tokenizer, max_tokens=5, overlap_tokens=0)
    word = ",".join("abcdefghij")  # 19 tokens: 10 letters and 9 commas
    passages = splitter(word)
    assert all(p.num_tokens <= 5 for p in passages)
    assert "".join(p.text for p in passages) == word


def test_empty_documents_and_bad_arguments(tokenizer):
    assert PassageSplitter(tokenizer)("  \n\n ") == []
    with pytest.raises(ValueError, match="overlap_tokens=10"):
        PassageSplitter(tokenizer, max_tokens=10, overlap_tokens=10)
    with pytest.raises(ValueError, match="max_tokens=0"):
        PassageSplitter(tokenizer, max_tokens=0, overlap_tokens=0)
    with pytest.raises(TypeError, match="must be a str"):
        PassageSplitter(tokenizer)(["a list"])
