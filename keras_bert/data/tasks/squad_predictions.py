"""Start/end logits of SQuAD windows -> answer text: n-best spans mapped back to the original text."""

import collections
import functools
import math

import numpy as np

from keras_bert.api_export import keras_bert_export
from keras_bert.data.tasks.squad_examples import split_on_whitespace
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer

_Candidate = collections.namedtuple(
    "_Candidate", ["window", "start", "end", "start_logit", "end_logit"]
)


def _top_indices(logits, n):
    """Indices of the `n` largest values, largest first (ties: lower index first)."""
    return np.argsort(-np.asarray(logits), kind="stable")[:n].tolist()


@functools.lru_cache(maxsize=2)
def _basic_tokenizer(do_lower_case):
    """BasicTokenizer only (no vocabulary needed): the special tokens satisfy the vocab checks."""
    return ReferenceTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"], do_lower_case)


def _softmax(scores):
    if not scores:
        return []
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


def _char_alignment(text):
    """Map from the character index in `text` without its spaces to the index in `text`."""
    return dict(enumerate(i for i, char in enumerate(text) if char != " "))


@keras_bert_export("keras_bert.data.project_to_original_text")
def project_to_original_text(pred_text, orig_text, do_lower_case):
    """Maps a detokenized prediction back onto the original words it came from.

    The model predicts WordPiece tokens, e.g. `steve smith` (lower-cased, accents stripped,
    punctuation split off) inside the original words `Steve Smith's`. This finds the
    prediction's characters in the basic-tokenized original and returns the matching slice of
    the original text (`Steve Smith`), keeping its case, accents and inner punctuation. When
    the alignment fails (the normalized texts differ in length), it returns `orig_text` whole,
    as google-research/bert does.
    """
    start, end = _project_to_original_span(pred_text, orig_text, do_lower_case)
    return orig_text[start:end]


def _project_to_original_span(pred_text, orig_text, do_lower_case):
    """`project_to_original_text` as `(start, end)` character offsets into `orig_text`."""
    whole = (0, len(orig_text))
    tok_text = " ".join(_basic_tokenizer(do_lower_case).basic_tokenize(orig_text))
    start = tok_text.find(pred_text)  # the first occurrence, as google's get_final_text
    if start == -1:
        return whole
    end = start + len(pred_text) - 1  # pred_text is stripped: start and end are not spaces
    orig_map = _char_alignment(orig_text)
    tok_map = _char_alignment(tok_text)
    if len(orig_map) != len(tok_map):
        return whole  # e.g. a zero-width or control character the tokenizer dropped
    tok_to_ns = {index: ns for ns, index in tok_map.items()}
    return orig_map[tok_to_ns[start]], orig_map[tok_to_ns[end]] + 1


def _span_text(example, features, candidate, do_lower_case):
    """`(text, first word, offset of text in the space-joined words)` of a candidate span."""
    tokens = features.tokens[candidate.window][candidate.start : candidate.end + 1]
    to_orig = features.token_to_orig_map[candidate.window]
    first, last = to_orig[candidate.start], to_orig[candidate.end]
    orig_text = " ".join(example.doc_tokens[first : last + 1])
    pred_text = " ".join(" ".join(tokens).replace(" ##", "").replace("##", "").split())
    start, end = _project_to_original_span(pred_text, orig_text, do_lower_case)
    return orig_text[start:end], first, start


@keras_bert_export("keras_bert.data.answer_char_span")
def answer_char_span(context, entry):
    """`(start, end)` character offsets of an n-best entry's text in its passage `context`.

    `entry` is one of `decode_squad_predictions(..., with_offsets=True)`'s n-best dicts; its
    text lies in the passage words from `orig_word_start`, at `orig_text_offset` in those words
    joined by single spaces. Returns `(-1, -1)` for the empty (no-answer) entry.
    """
    text = entry["text"]
    if not text:
        return -1, -1
    words, char_to_word = split_on_whitespace(context)
    word_starts = [0] * len(words)
    for i in reversed(range(len(context))):  # a word's first character is its first mention
        if char_to_word[i] >= 0:
            word_starts[char_to_word[i]] = i

    def to_context(word, offset):  # offset in " ".join(words[word:]) -> index in context
        while offset >= len(words[word]):
            offset -= len(words[word]) + 1
            word += 1
        return word_starts[word] + offset

    first, offset = entry["orig_word_start"], entry["orig_text_offset"]
    return to_context(first, offset), to_context(first, offset + len(text) - 1) + 1


@keras_bert_export("keras_bert.data.decode_squad_predictions")
def decode_squad_predictions(
    examples,
    features,
    start_logits,
    end_logits,
    n_best_size=20,
    max_answer_length=30,
    do_lower_case=True,
    version_2_with_negative=False,
    null_score_diff_threshold=0.0,
    with_offsets=False,
):
    """The best answer of every question, from the logits of all its windows.

    For each window, every pair of the `n_best_size` best starts and ends is a candidate if
    both are document tokens, `end >= start`, the span is at most `max_answer_length` tokens
    and the start token has its most centred view in this window. Candidates are ranked by
    `start_logit + end_logit`; the best `n_best_size` distinct texts form the n-best list (with
    softmax probabilities). With `version_2_with_negative`, the null answer scores
    `start_logits[0] + end_logits[0]` (lowest over windows) and wins when it beats the best
    span by more than `null_score_diff_threshold`.

    Args:
        examples: the `SquadExample`s; features: their `SquadFeatures`.
        start_logits, end_logits: float arrays `[num_windows, max_seq_length]`.

    Returns:
        `(predictions, nbest, null_odds)`: `{qas_id: text}`, `{qas_id: [{"text",
        "probability", "start_logit", "end_logit"}]}` and, for v2.0, `{qas_id: null score -
        best span score}` (empty for v1.1; `inf` when no window has a valid span).
    """
    windows_of = collections.defaultdict(list)
    for window, example_index in enumerate(features.example_index):
        windows_of[example_index].append(window)
    predictions, nbest, null_odds = {}, {}, {}
    for example_index, example in enumerate(examples):
        candidates, null = [], None
        for window in windows_of[example_index]:
            starts, ends = start_logits[window], end_logits[window]
            to_orig = features.token_to_orig_map[window]
            max_context = features.token_is_max_context[window]
            if version_2_with_negative:
                score = float(starts[0] + ends[0])
                if null is None or score < null[0]:
                    null = (score, float(starts[0]), float(ends[0]))
            for start in _top_indices(starts, n_best_size):
                for end in _top_indices(ends, n_best_size):
                    if start not in to_orig or end not in to_orig or end < start:
                        continue
                    if end - start + 1 > max_answer_length or not max_context.get(start, False):
                        continue
                    candidates.append(
                        _Candidate(window, start, end, float(starts[start]), float(ends[end]))
                    )
        candidates.sort(key=lambda c: c.start_logit + c.end_logit, reverse=True)

        entries, seen = [], set()
        for candidate in candidates:
            if len(entries) >= n_best_size:
                break
            text, first_word, offset = _span_text(example, features, candidate, do_lower_case)
            if text in seen:
                continue
            seen.add(text)
            entries.append({"text": text, "start_logit": candidate.start_logit,
                            "end_logit": candidate.end_logit})
            if with_offsets:
                entries[-1].update(orig_word_start=first_word, orig_text_offset=offset)
        if version_2_with_negative and null is not None and "" not in seen:
            entries.append({"text": "", "start_logit": null[1], "end_logit": null[2]})
            entries.sort(key=lambda e: e["start_logit"] + e["end_logit"], reverse=True)
        if not entries:  # no valid span in any window
            entries.append({"text": "", "start_logit": 0.0, "end_logit": 0.0})
        probabilities = _softmax([e["start_logit"] + e["end_logit"] for e in entries])
        for entry, probability in zip(entries, probabilities):
            entry["probability"] = probability
        nbest[example.qas_id] = entries

        best_span = next((e for e in entries if e["text"]), None)
        if not version_2_with_negative:
            predictions[example.qas_id] = entries[0]["text"]
            continue
        if best_span is None:
            null_odds[example.qas_id] = 0.0 if null is None else float("inf")
            predictions[example.qas_id] = ""
            continue
        diff = null[0] - best_span["start_logit"] - best_span["end_logit"]
        null_odds[example.qas_id] = diff
        predictions[example.qas_id] = "" if diff > null_score_diff_threshold else best_span["text"]
    return predictions, nbest, null_odds
