"""SQuAD examples -> fixed-length model inputs: sliding document windows (`doc_stride`)."""

import collections
import dataclasses

import numpy as np

from keras_bert.api_export import keras_bert_export
from keras_bert.tokenization.packing import pack_segments


@dataclasses.dataclass
class SquadFeatures:
    """The windows of many examples: model inputs as arrays, alignment as lists.

    Attributes:
        token_ids, segment_ids, padding_mask: int32 `[num_windows, max_seq_length]`.
        start_positions, end_positions: int32 `[num_windows]`, the answer's token positions in
            the window (0, the `[CLS]` position, when the answer is not inside the window or
            the question is unanswerable).
        example_index: list of int, the example each window came from.
        tokens: list of list of str, each window's tokens (`[CLS] q [SEP] doc [SEP]`).
        token_to_orig_map: list of dict, window position -> word index in `doc_tokens`.
        token_is_max_context: list of dict, window position -> whether this window gives that
            document token its most centred view (only such positions may start an answer).
        num_questions_truncated: int, questions cut to `max_query_length` tokens.
        num_answers_outside_windows: int, training answers no window contains whole.
    """

    token_ids: np.ndarray
    segment_ids: np.ndarray
    padding_mask: np.ndarray
    start_positions: np.ndarray
    end_positions: np.ndarray
    example_index: list
    tokens: list
    token_to_orig_map: list
    token_is_max_context: list
    num_questions_truncated: int = 0
    num_answers_outside_windows: int = 0

    def __len__(self):
        return len(self.example_index)

    def inputs(self):
        return {
            "token_ids": self.token_ids,
            "segment_ids": self.segment_ids,
            "padding_mask": self.padding_mask,
        }

    def labels(self):
        return {"start_logits": self.start_positions, "end_logits": self.end_positions}


def _improve_answer_span(doc_tokens, start, end, tokenizer, answer_text):
    """The tightest wordpiece span that spells the answer (e.g. "1895" inside "(1895-1943)")."""
    target = " ".join(tokenizer.tokenize(answer_text))
    for new_start in range(start, end + 1):
        for new_end in range(end, new_start - 1, -1):
            if " ".join(doc_tokens[new_start : new_end + 1]) == target:
                return new_start, new_end
    return start, end


def _is_max_context(windows, window_index, position):
    """Whether `windows[window_index]` is the window where `position` has the most context.

    Score = min(tokens left, tokens right) + 0.01 * window length, as google-research/bert.
    """
    best_score, best_index = None, None
    for index, (start, length) in enumerate(windows):
        end = start + length - 1
        if position < start or position > end:
            continue
        score = min(position - start, end - position) + 0.01 * length
        if best_score is None or score > best_score:
            best_score, best_index = score, index
    return best_index == window_index


def _doc_windows(num_tokens, max_tokens_for_doc, doc_stride):
    """`[(start, length)]` windows over `num_tokens` document tokens, `doc_stride` apart."""
    windows, start = [], 0
    while True:
        length = min(num_tokens - start, max_tokens_for_doc)
        windows.append((start, length))
        if start + length >= num_tokens:
            return windows
        start += min(length, doc_stride)


@keras_bert_export("keras_bert.data.convert_squad_examples")
def convert_squad_examples(
    examples, tokenizer, max_seq_length=384, doc_stride=128, max_query_length=64, is_training=False
):
    """Tokenizes examples into `[CLS] question [SEP] window [SEP]` windows (google's layout).

    Documents longer than the window are covered by overlapping windows that start
    `doc_stride` tokens apart. Each whitespace word is WordPiece-tokenized on its own, so every
    wordpiece maps back to a word of the original context. Questions longer than
    `max_query_length` tokens are cut (counted in `num_questions_truncated`).

    Args:
        examples: list of `SquadExample`.
        tokenizer: a `ReferenceTokenizer` (`tokenize`, `convert_tokens_to_ids`).
        max_seq_length, doc_stride, max_query_length: int, google-research/bert's flags.
        is_training: bool. Compute `start_positions` / `end_positions`.

    Returns:
        `SquadFeatures`.
    """
    if max_query_length < 1 or doc_stride < 1:
        raise ValueError(
            f"max_query_length ({max_query_length}) and doc_stride ({doc_stride}) must be >= 1."
        )
    if max_seq_length - max_query_length - 3 < 1:
        raise ValueError(
            f"max_seq_length={max_seq_length} leaves no room for the document after a "
            f"{max_query_length}-token question and 3 special tokens; raise max_seq_length or "
            "lower max_query_length."
        )
    columns = collections.defaultdict(list)
    counts = collections.Counter()
    cls_id, sep_id, pad_id = tokenizer.convert_tokens_to_ids(["[CLS]", "[SEP]", "[PAD]"])
    last_doc, doc = None, None
    for example_index, example in enumerate(examples):
        query_tokens = tokenizer.tokenize(example.question_text)
        if len(query_tokens) > max_query_length:
            counts["truncated"] += 1
            query_tokens = query_tokens[:max_query_length]
        query_ids = tokenizer.convert_tokens_to_ids(query_tokens)
        if example.doc_tokens is not last_doc:  # a paragraph's questions share its words
            last_doc, doc = example.doc_tokens, _tokenize_doc(example.doc_tokens, tokenizer)
        tok_to_orig_index, orig_to_tok_index, doc_pieces = doc

        answer = None
        if is_training and not example.is_impossible:
            start = orig_to_tok_index[example.start_position]
            if example.end_position < len(example.doc_tokens) - 1:
                end = orig_to_tok_index[example.end_position + 1] - 1
            else:
                end = len(doc_pieces) - 1
            answer = _improve_answer_span(
                doc_pieces, start, end, tokenizer, example.orig_answer_text
            )

        max_tokens_for_doc = max_seq_length - len(query_tokens) - 3
        windows = _doc_windows(len(doc_pieces), max_tokens_for_doc, doc_stride)
        inside_any = False
        for window_index, (doc_start, length) in enumerate(windows):
            tokens = ["[CLS]", *query_tokens, "[SEP]"]
            token_to_orig_map, token_is_max_context = {}, {}
            for i in range(length):
                position = doc_start + i
                token_to_orig_map[len(tokens)] = tok_to_orig_index[position]
                token_is_max_context[len(tokens)] = _is_max_context(windows, window_index, position)
                tokens.append(doc_pieces[position])
            tokens.append("[SEP]")
            # The window fits beside the question: packing adds the special tokens, no cuts.
            columns["query_ids"].append(query_ids)
            columns["window_ids"].append(
                tokenizer.convert_tokens_to_ids(doc_pieces[doc_start:doc_start + length])
            )

            start_position = end_position = 0
            if answer is not None:
                doc_end = doc_start + length - 1
                if doc_start <= answer[0] and answer[1] <= doc_end:
                    offset = len(query_tokens) + 2
                    start_position = answer[0] - doc_start + offset
                    end_position = answer[1] - doc_start + offset
                    inside_any = True
            columns["start_positions"].append(start_position)
            columns["end_positions"].append(end_position)
            columns["example_index"].append(example_index)
            columns["tokens"].append(tokens)
            columns["token_to_orig_map"].append(token_to_orig_map)
            columns["token_is_max_context"].append(token_is_max_context)
        if answer is not None and not inside_any:
            counts["outside"] += 1
    packed = pack_segments(columns["query_ids"], columns["window_ids"],
                           sequence_length=max_seq_length, cls_token_id=cls_id,
                           sep_token_id=sep_id, pad_token_id=pad_id)
    positions = lambda key: np.asarray(columns[key], "int32").reshape(-1)  # noqa: E731
    return SquadFeatures(
        **packed,
        start_positions=positions("start_positions"),
        end_positions=positions("end_positions"),
        example_index=columns["example_index"],
        tokens=columns["tokens"],
        token_to_orig_map=columns["token_to_orig_map"],
        token_is_max_context=columns["token_is_max_context"],
        num_questions_truncated=counts["truncated"],
        num_answers_outside_windows=counts["outside"],
    )


def _tokenize_doc(doc_tokens, tokenizer):
    """`(tok_to_orig_index, orig_to_tok_index, pieces)` of a paragraph's whitespace words."""
    tok_to_orig_index, orig_to_tok_index, pieces = [], [], []
    for word_index, word in enumerate(doc_tokens):
        orig_to_tok_index.append(len(pieces))
        for piece in tokenizer.tokenize(word):
            tok_to_orig_index.append(word_index)
            pieces.append(piece)
    return tok_to_orig_index, orig_to_tok_index, pieces
