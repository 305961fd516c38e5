"""Unlabelled text from the datasets here as pretraining documents, deduplicated, eval text held out.

Every reader returns documents: lists of sentences (str). `build_corpus` joins sources,
drops repeated sentences and every sentence of the held-out evaluation text, and counts what it
dropped, so a pretraining corpus can use all the text there is without seeing what a
downstream evaluation will score.
"""

import collections
import dataclasses
import json
import re

from keras_bert.api_export import keras_bert_export
from keras_bert.data.tasks.classification_data import GLUE_TASKS
from keras_bert.data.tasks.classification_data import read_classification_examples
from keras_bert.data.tasks.conll_ner import read_conll
from keras_bert.data.data_files import find_data_file
from keras_bert.data.data_files import open_data_file
from keras_bert.data.pretraining.text_to_documents import split_sentences
from keras_bert.data.pretraining.text_to_documents import text_to_documents

# WikiText's tokenized forms of "-", "," and "." inside numbers and words.
_WIKITEXT_JOINS = {" @-@ ": "-", " @,@ ": ",", " @.@ ": "."}
_WIKITEXT_TITLE = re.compile(r"^ = [^=].* = $")


def squad_documents(path):
    """One document per SQuAD article: the sentences of its paragraphs (no questions)."""
    with open_data_file(path, encoding="utf-8") as f:
        articles = json.load(f)["data"]
    return [[s for p in a["paragraphs"] for s in split_sentences(p["context"])] for a in articles]


def glue_documents(data_dir, task_name, split="train"):
    """The texts of a GLUE task's `split` ("train" or "dev") with the labels dropped: one
    document per example (a pair's two sentences are one document)."""
    task = GLUE_TASKS[task_name]
    name = task.train_file if split == "train" else task.dev_file
    examples = read_classification_examples(find_data_file(data_dir, name), task)
    return [[t for t in (e.text_a, e.text_b) if t] for e in examples]


def conll_documents(path):
    """One document per CoNLL-2003 article (`-DOCSTART-` to the next): its sentences' words
    joined by spaces (the tags dropped)."""
    documents, current = [], []
    with open_data_file(path, encoding="utf-8") as f:
        starts = [number for number, line in enumerate(f, 1) if line.startswith("-DOCSTART-")]
    sentences = read_conll(path)
    boundaries = iter(starts[1:] + [float("inf")])
    boundary = next(boundaries)
    for sentence in sentences:
        while sentence.line > boundary:
            if current:
                documents.append(current)
            current, boundary = [], next(boundaries)
        current.append(" ".join(sentence.words))
    if current:
        documents.append(current)
    return documents


def wikitext_documents(path):
    """One document per WikiText article (its top-level ` = Title = ` line starts it): the
    paragraphs' sentences, headings dropped, ` @-@ `-style joins undone, `<unk>` removed."""
    documents, current = [], []
    with open_data_file(path, encoding="utf-8") as f:
        for line in f:
            if _WIKITEXT_TITLE.match(line.rstrip("\n")):
                if current:
                    documents.append(current)
                current = []
                continue
            text = line.strip()
            if not text or text.startswith("= "):
                continue
            for tokenized, plain in _WIKITEXT_JOINS.items():
                text = text.replace(tokenized, plain)
            text = " ".join(w for w in text.split() if w != "<unk>")
            current.extend(split_sentences(text))
    if current:
        documents.append(current)
    return documents


def book_documents(path, max_sentences_per_document=400):
    """A Project Gutenberg book (or any raw text) as chapters (`text_to_documents`)."""
    with open_data_file(path, encoding="utf-8") as f:
        return text_to_documents(f.read(), max_sentences_per_document)


def normalized(sentence):
    """The key two sentences are the same by: lower case, whitespace collapsed."""
    return " ".join(sentence.lower().split())


@keras_bert_export("keras_bert.data.CorpusSummary")
@dataclasses.dataclass
class CorpusSummary:
    """What `build_corpus` kept and dropped, per source (`{name: count}` dicts)."""

    documents: dict
    sentences: dict
    words: dict
    duplicates: dict
    held_out: dict

    def to_json(self):
        return dataclasses.asdict(self)


@keras_bert_export("keras_bert.data.build_corpus")
def build_corpus(sources, held_out=()):
    """Joins documents from several sources, without repeats and without held-out text.

    A sentence is dropped when an earlier one (in this or an earlier source, in order) is the
    same after `normalized`, or when it is a sentence of `held_out`; a document left without
    sentences is dropped. Sentence-level matching catches evaluation text reused inside longer
    training documents (a dev paragraph quoted in a train article).

    Args:
        sources: list of `(name, documents)`, documents as the readers here return them.
        held_out: iterable of documents whose sentences must not be trained on (the evaluation
            sets' text).

    Returns:
        `(documents, CorpusSummary)`.

    Example:
    >>> documents, summary = keras_bert.data.build_corpus(
    ...     [("a", [["One.", "Two."], ["one."]]), ("b", [["Three.", "Dev text."]])],
    ...     held_out=[["Dev  text."]])
    >>> documents
    [['One.', 'Two.'], ['Three.']]
    >>> summary.duplicates, summary.held_out
    ({'a': 1, 'b': 0}, {'a': 0, 'b': 1})
    """
    blocked = {normalized(s) for doc in held_out for s in doc}
    seen = set()
    kept = []
    counts = {key: collections.Counter() for key in
              ("documents", "sentences", "words", "duplicates", "held_out")}
    for name, documents in sources:
        for key in counts:
            counts[key][name] += 0
        for document in documents:
            sentences = []
            for sentence in document:
                key = normalized(sentence)
                if not key:
                    continue
                if key in blocked:
                    counts["held_out"][name] += 1
                elif key in seen:
                    counts["duplicates"][name] += 1
                else:
                    seen.add(key)
                    sentences.append(sentence.strip())
                    counts["words"][name] += len(key.split())
            if sentences:
                kept.append(sentences)
                counts["documents"][name] += 1
                counts["sentences"][name] += len(sentences)
    return kept, CorpusSummary(**{key: dict(value) for key, value in counts.items()})
