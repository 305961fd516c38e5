"""BERT inputs as numpy arrays, without TensorFlow: `[CLS] A [SEP] B [SEP]`, google's truncation."""

import numpy as np

from keras_bert.api_export import keras_bert_export
from keras_bert.tokenization.vocab import special_token_ids


def _truncate_pair(first, second, max_tokens):
    """Drops the last token of the currently longer segment (of the second on a tie) until the
    pair holds `max_tokens`: google-research/bert's `_truncate_seq_pair`."""
    first, second = list(first), list(second)
    while len(first) + len(second) > max_tokens:
        if len(first) > len(second):
            first.pop()
        else:
            second.pop()
    return first, second


@keras_bert_export("keras_bert.pack_segments")
def pack_segments(first, second=None, *, sequence_length, cls_token_id, sep_token_id,
                  pad_token_id=0):
    """Packs token-id segments into BERT's input dict of numpy arrays (no TensorFlow).

    The layout and truncation are `BertPacker`'s (google-research/bert's
    `convert_single_example`): `[CLS] A [SEP]`, or `[CLS] A [SEP] B [SEP]` with the longer
    segment shortened first, then `pad_token_id` up to `sequence_length`.

    Args:
        first: list of examples, each a list of int token ids without `[CLS]`/`[SEP]`.
        second: optional list of the same length: each example's second segment.
        sequence_length: int, output length, special tokens included.
        cls_token_id, sep_token_id, pad_token_id: ints.

    Returns:
        dict of int32 arrays `[num_examples, sequence_length]`: `token_ids`, `segment_ids` (0
        for `[CLS] A [SEP]`, 1 for `B [SEP]`, 0 for padding), `padding_mask` (1 on real tokens).

    Example:
    >>> packed = keras_bert.pack_segments([[10, 11, 12, 13, 14]], [[20, 21]], sequence_length=8,
    ...                                   cls_token_id=2, sep_token_id=3)
    >>> packed["token_ids"].tolist(), packed["segment_ids"].tolist()
    ([[2, 10, 11, 12, 3, 20, 21, 3]], [[0, 0, 0, 0, 0, 1, 1, 1]])
    """
    pairs = second is not None
    if pairs and len(second) != len(first):
        raise ValueError(f"{len(first)} first segments but {len(second)} second segments: "
                         "pass one second segment per example.")
    minimum = 3 if pairs else 2
    if sequence_length < minimum:
        raise ValueError(f"sequence_length={sequence_length} cannot hold the special tokens: use "
                         f"at least {minimum} for {'pairs' if pairs else 'single segments'}.")
    shape = (len(first), sequence_length)
    packed = {"token_ids": np.full(shape, pad_token_id, "int32"),
              "segment_ids": np.zeros(shape, "int32"), "padding_mask": np.zeros(shape, "int32")}
    for row, tokens_a in enumerate(first):
        if pairs:
            tokens_a, tokens_b = _truncate_pair(tokens_a, second[row], sequence_length - 3)
            tokens_b = list(tokens_b) + [sep_token_id]
        else:
            tokens_a, tokens_b = list(tokens_a)[: sequence_length - 2], []
        tokens_a = [cls_token_id, *tokens_a, sep_token_id]
        length = len(tokens_a) + len(tokens_b)
        packed["token_ids"][row, :length] = tokens_a + tokens_b
        packed["segment_ids"][row, len(tokens_a):length] = 1
        packed["padding_mask"][row, :length] = 1
    return packed


@keras_bert_export("keras_bert.encode_texts")
def encode_texts(tokenizer, first, second=None, *, sequence_length):
    """Tokenizes texts (or text pairs) with `tokenizer` (a `ReferenceTokenizer`) and packs them
    with `pack_segments`, using the vocabulary's `[CLS]`, `[SEP]` and `[PAD]`.

    Example (a vocab.txt path works as well as a token list):
    >>> tokenizer = keras_bert.ReferenceTokenizer(
    ...     ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "question", "passage", "?", "."])
    >>> x = keras_bert.encode_texts(tokenizer, ["a question?"], ["a passage."],
    ...                             sequence_length=10)
    >>> x["token_ids"].tolist(), x["segment_ids"].tolist()
    ([[2, 5, 6, 8, 3, 5, 7, 9, 3, 0]], [[0, 0, 0, 0, 0, 1, 1, 1, 1, 0]])
    """
    ids = special_token_ids(tokenizer.vocabulary)
    return pack_segments(
        [tokenizer.encode(text) for text in first],
        None if second is None else [tokenizer.encode(text) for text in second],
        sequence_length=sequence_length, cls_token_id=ids["[CLS]"], sep_token_id=ids["[SEP]"],
        pad_token_id=ids["[PAD]"],
    )
