"""`split_sentences`: the rules on hand-picked cases, and spans that cover a real article."""

import gzip
import json

import pytest

from keras_bert.retrieval.sentence_splitter import split_sentences
from tests.data_paths import shared_data_dir

pytestmark = pytest.mark.backend_portable


def sentences(text):
    return [text[s:e] for s, e in split_sentences(text)]


@pytest.mark.parametrize("text, expected", [
    ("One. Two! Three? Four", ["One.", "Two!", "Three?", "Four"]),
    # Abbreviations, initials and dotted abbreviations before a capital do not end a sentence.
    ("Dr. Who met Mr. Smith at St. Paul. It rained.", ["Dr. Who met Mr. Smith at St. Paul.",
                                                        "It rained."]),
    ("J. R. R. Tolkien wrote it. The U.S. Army came.", ["J. R. R. Tolkien wrote it.",
                                                        "The U.S. Army came."]),
    # A lower-case word after the period: no new sentence ("e.g. this", "5 p.m. on Monday").
    ("Cats, e.g. lions, roar. Then they sleep.", ["Cats, e.g. lions, roar.",
                                                  "Then they sleep."]),
    # Closing quotes and brackets stay with their sentence; opening ones start the next.
    ('He said "Go." "Now?" (She left.) Then 1990 came.', ['He said "Go."', '"Now?"',
                                                          "(She left.)", "Then 1990 came."]),
    ("Decimals 3.14 and 1,000.5 stay. Ellipsis... Then", ["Decimals 3.14 and 1,000.5 stay.",
                                                          "Ellipsis...", "Then"]),
    # A blank line always ends a sentence; a single line break does not.
    ("Title without stop\n\nBody goes\non here.", ["Title without stop", "Body goes\non here."]),
    ("东京很大。大阪也很大！", ["东京很大。", "大阪也很大！"]),
    ("", []),
    ("   \n\n  ", []),
])
def test_rules(text, expected):
    assert sentences(text) == expected


def test_spans_cover_every_character_of_a_real_article_once():
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt") as f:
        article = json.load(f)["data"][1]  # Warsaw: 49 paragraphs
    text = "\n\n".join(p["context"] for p in article["paragraphs"])
    spans = split_sentences(text)
    covered = [0] * len(text)
    for start, end in spans:
        assert text[start:end] == text[start:end].strip() != ""
        for i in range(start, end):
            covered[i] += 1
    assert all(c == 1 or (c == 0 and text[i].isspace()) for i, c in enumerate(covered))
    assert [s for s, _ in spans] == sorted(s for s, _ in spans)
    # No sentence crosses a paragraph, and each paragraph has at least one.
    assert not [s for s, e in spans if "\n\n" in text[s:e]]
    assert len(spans) > len(article["paragraphs"])


def test_text_must_be_a_string():
    with pytest.raises(TypeError, match="must be a str"):
        split_sentences(b"bytes")
