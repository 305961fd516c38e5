"""Raw text (e.g. Project Gutenberg books) to BERT's pretraining format: one sentence per line."""

import re

from keras_bert.api_export import keras_bert_export
from keras_bert.atomic_files import atomic_open

# Titles that end with a period but do not end a sentence ("Mr. Knightley").
ABBREVIATIONS = frozenset(
    "mr mrs ms dr st mt jr sr messrs mme mlle mons prof rev hon capt col gen lt sgt gov esq "
    "vs etc viz cf no vol ch fig ibid i.e e.g a.m p.m u.s".split()
)
# A heading line that starts a new document: "CHAPTER I", "Chapter 12.", "BOOK THE SECOND", "XIV."
_HEADING = re.compile(
    r"^\s*((chapter|book|part|volume|stave|letter|adventure)\b[\w .:,'-]*|[IVXLC]+\.?|\d+\.?)\s*$",
    re.IGNORECASE,
)
# Candidate sentence ends: terminal punctuation, optional closing quotes/brackets, whitespace,
# then something that can start a sentence.
_BOUNDARY = re.compile(r"([.!?]+[\"'\u201d\u2019)\]]*)\s+(?=[\"'\u201c\u2018(\[_]*[A-Z0-9])")
_START_MARK = re.compile(r"^\*\*\* ?START OF (THIS|THE) PROJECT GUTENBERG", re.MULTILINE)
_END_MARK = re.compile(r"^\*\*\* ?END OF (THIS|THE) PROJECT GUTENBERG", re.MULTILINE)


def gutenberg_body(text):
    """The book between Project Gutenberg's `*** START OF` and `*** END OF` lines (else all of it)."""
    start = _START_MARK.search(text)
    if start:
        text = text[text.index("\n", start.start()) + 1 :]
    end = _END_MARK.search(text)
    if end:
        text = text[: end.start()]
    return text


def split_sentences(paragraph):
    """Splits one paragraph of running text into sentences (rule-based, English).

    A period ends a sentence unless the word before it is a known abbreviation or a single
    capital letter (an initial, "J. R."); `!`/`?` always do when followed by a capitalized word.
    """
    paragraph = " ".join(paragraph.split())
    sentences, start = [], 0
    for match in _BOUNDARY.finditer(paragraph):
        before = paragraph[start : match.start()].rsplit(" ", 1)[-1]
        word = before.strip("\"'\u201c\u2018(_").rstrip(".").lower()
        if match.group(1).startswith(".") and (
            word in ABBREVIATIONS or (len(word) == 1 and word.isalpha())
        ):
            continue
        sentences.append(paragraph[start : match.end(1)])
        start = match.end()
    tail = paragraph[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


@keras_bert_export("keras_bert.data.text_to_documents")
def text_to_documents(text, max_sentences_per_document=400, strip_gutenberg=True):
    """Turns a raw book or article into documents of sentences, BERT's pretraining input.

    Paragraphs are separated by blank lines and their wrapped lines are joined. A heading line
    ("CHAPTER IV", "Stave 2", "XIV.") starts a new document, so the next-sentence task draws its
    "NotNext" partners from other chapters; a document is also closed after
    `max_sentences_per_document` sentences. Underscores used for italics (`_them_`) are removed.
    Headings themselves are not sentences and are dropped.

    Args:
        text: str, the raw text.
        max_sentences_per_document: int, the longest a document may grow. Defaults to 400.
        strip_gutenberg: bool, keep only the text between Project Gutenberg's START/END marks.
            Defaults to `True` (text without the marks is kept whole).

    Returns:
        list of documents, each a list of str sentences (documents are never empty).

    Example:
    >>> keras_bert.data.text_to_documents(
    ...     "CHAPTER I\\n\\nMr. Smith came in.  He sat\\ndown!\\n\\nCHAPTER II\\n\\nIt rained.")
    [['Mr. Smith came in.', 'He sat down!'], ['It rained.']]
    """
    if max_sentences_per_document < 1:
        raise ValueError(f"max_sentences_per_document must be >= 1, got {max_sentences_per_document}.")
    if strip_gutenberg:
        text = gutenberg_body(text)
    documents, current = [], []

    def close():
        if current:
            documents.append(list(current))
            current.clear()

    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n")):
        lines = [line for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        if len(lines) == 1 and _HEADING.match(lines[0]):
            close()
            continue
        paragraph = re.sub(r"(?<!\w)_|_(?!\w)", "", " ".join(lines))
        for sentence in split_sentences(paragraph):
            current.append(sentence)
            if len(current) >= max_sentences_per_document:
                close()
    close()
    return documents


def write_documents(documents, path):
    """Writes documents in google-research/bert's format: a sentence per line, blank line between.

    The file appears complete or not at all (written under a temporary name, then renamed)."""
    with atomic_open(path, encoding="utf-8") as f:
        for document in documents:
            for sentence in document:
                f.write(sentence.replace("\n", " ") + "\n")
            f.write("\n")
