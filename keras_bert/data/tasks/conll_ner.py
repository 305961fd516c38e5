"""CoNLL-2003 NER: read `word POS chunk tag` files; align word labels to the first WordPiece."""

import dataclasses
import io
import os

import numpy as np

from keras_bert.api_export import keras_bert_export
from keras_bert.data.data_files import read_data_text
from keras_bert.tokenization.packing import pack_segments

CONLL2003_LABELS = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC")


@dataclasses.dataclass
class NerSentence:
    words: list
    tags: list
    line: int  # line of the first word


class ConllFormatError(ValueError):
    """A CoNLL line that does not fit the format, naming the file and line."""


@keras_bert_export("keras_bert.data.read_conll")
def read_conll(path, num_columns=4, labels=CONLL2003_LABELS):
    """Reads a CoNLL file (`.gz` too): one `word ... tag` line per token, blank lines between
    sentences, `-DOCSTART-` lines skipped. The tag is the last column.

    Every token line must have `num_columns` space-separated columns and a tag in `labels`;
    otherwise `ConllFormatError` names the file and line.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"CoNLL file {path} does not exist.")
    sentences, words, tags, first = [], [], [], None
    # newline=None: "\r", "\n" and "\r\n" end lines, as in a file opened as text.
    with io.StringIO(read_data_text(path, ConllFormatError), newline=None) as f:
        for number, line in enumerate(f, 1):
            columns = line.split()
            if not columns or columns[0] == "-DOCSTART-":
                if words:
                    sentences.append(NerSentence(words, tags, first))
                words, tags = [], []
                continue
            if len(columns) != num_columns:
                raise ConllFormatError(
                    f"{path}:{number}: {len(columns)} columns ({line.strip()!r}), expected "
                    f"{num_columns} (word POS chunk tag for CoNLL-2003); words may not contain "
                    "spaces."
                )
            if columns[-1] not in labels:
                raise ConllFormatError(
                    f"{path}:{number}: tag {columns[-1]!r} is not one of {list(labels)}."
                )
            if not words:
                first = number
            words.append(columns[0])
            tags.append(columns[-1])
    if words:
        sentences.append(NerSentence(words, tags, first))
    if not sentences:
        raise ConllFormatError(f"{path}: no sentences.")
    return sentences


@dataclasses.dataclass
class NerFeatures:
    """Model inputs for sentences: label ids on each word's first WordPiece, -1 elsewhere.

    Attributes:
        token_ids, segment_ids, padding_mask, label_ids: int32 `[num_sentences, max_seq_length]`.
        word_positions: list of lists, each word's first-piece position (None for words cut
            off by `max_seq_length`, which are predicted `O`).
        num_truncated: int, sentences with words cut off.
    """

    token_ids: np.ndarray
    segment_ids: np.ndarray
    padding_mask: np.ndarray
    label_ids: np.ndarray
    word_positions: list
    num_truncated: int

    def inputs(self):
        return {
            "token_ids": self.token_ids,
            "segment_ids": self.segment_ids,
            "padding_mask": self.padding_mask,
        }

    def sample_weight(self):
        return (self.label_ids >= 0).astype("float32")


@keras_bert_export("keras_bert.data.convert_ner_sentences")
def convert_ner_sentences(sentences, tokenizer, labels, max_seq_length):
    """`[CLS] pieces [SEP]` per sentence; each word's label sits on its first piece."""
    cls_id, sep_id, pad_id, unk_id = tokenizer.convert_tokens_to_ids(
        ["[CLS]", "[SEP]", "[PAD]", "[UNK]"]
    )
    label_ids = np.full((len(sentences), max_seq_length), -1, "int32")
    label_index = {label: i for i, label in enumerate(labels)}
    segments, word_positions, truncated = [], [], 0
    for row, sentence in enumerate(sentences):
        ids, positions, full = [], [], False  # ids[i] will sit at position i + 1, after [CLS]
        for word, tag in zip(sentence.words, sentence.tags):
            # A word the tokenizer drops (e.g. a control character) is one [UNK].
            pieces = tokenizer.convert_tokens_to_ids(tokenizer.tokenize(word)) or [unk_id]
            full = full or len(ids) + len(pieces) > max_seq_length - 2
            if full:  # this word and all after it are cut off
                positions.append(None)
                continue
            positions.append(len(ids) + 1)
            label_ids[row, len(ids) + 1] = label_index[tag]
            ids.extend(pieces)
        truncated += full
        segments.append(ids)
        word_positions.append(positions)
    # Whole words were cut above, so packing adds [CLS] / [SEP] / padding and cuts nothing.
    packed = pack_segments(segments, sequence_length=max_seq_length, cls_token_id=cls_id,
                           sep_token_id=sep_id, pad_token_id=pad_id)
    return NerFeatures(packed["token_ids"], packed["segment_ids"], packed["padding_mask"],
                       label_ids, word_positions, truncated)


@keras_bert_export("keras_bert.data.word_predictions")
def word_predictions(features, logits, labels):
    """Tags per word from `[n, seq, num_labels]` logits (cut-off words get `O`)."""
    best = np.asarray(logits).argmax(-1)
    return [
        [labels[best[row, p]] if p is not None else "O" for p in positions]
        for row, positions in enumerate(features.word_positions)
    ]
