"""Fuzzing SQuAD reading, windowing and answer decoding with Hypothesis (issue 31).

The central property is a round trip an independent oracle can check: put an answer anywhere
in any passage, write the SQuAD file, read it, cut it into windows, make the model's logits
point at the gold tokens, decode them, and map the answer back to character offsets; the
offsets must select exactly the answer's characters in the original passage. Around it: the
whitespace splitter against `str` operations, and files that are not SQuAD get a
`SquadFormatError` of one line (or load).
"""

import functools
import gzip
import json

import numpy as np
import pytest
from hypothesis import assume
from hypothesis import event
from hypothesis import given
from hypothesis import strategies as st

from keras_bert.data.tasks.squad_examples import SquadFormatError
from keras_bert.data.tasks.squad_examples import read_squad_examples
from keras_bert.data.tasks.squad_examples import split_on_whitespace
from keras_bert.data.tasks.squad_features import convert_squad_examples
from keras_bert.data.tasks.squad_predictions import answer_char_span
from keras_bert.data.tasks.squad_predictions import decode_squad_predictions
from keras_bert.data.tasks.squad_predictions import project_to_original_text
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.keras_bert.tokenization.hard_cases import vocab_path
from tests.reliability.strategies import TRICKY_CHARACTERS
from tests.reliability.strategies import user_text

pytestmark = pytest.mark.reliability
SQUAD_WHITESPACE = " \t\r\n\u202f"  # google's run_squad.py is_whitespace
_word_characters = st.one_of(
    st.characters(blacklist_categories=("Cs",), blacklist_characters=SQUAD_WHITESPACE),
    st.sampled_from([c for c in TRICKY_CHARACTERS if c not in SQUAD_WHITESPACE]))
words = st.text(_word_characters, min_size=1, max_size=10)
separators = st.text(st.sampled_from(SQUAD_WHITESPACE), min_size=1, max_size=3)


@functools.lru_cache(maxsize=None)
def tokenizer(casing):
    return ReferenceTokenizer(vocab_path(casing), do_lower_case=casing == "uncased")


@given(context=st.text(st.one_of(st.sampled_from(SQUAD_WHITESPACE), _word_characters)))
def test_whitespace_split_matches_str_split_on_squads_whitespace(context):
    doc_tokens, char_to_word = split_on_whitespace(context)
    translated = context.translate({ord(c): " " for c in SQUAD_WHITESPACE})
    assert doc_tokens == [word for word in translated.split(" ") if word]
    assert len(char_to_word) == len(context)
    assert char_to_word == sorted(char_to_word) and all(-1 <= i < len(doc_tokens)
                                                        for i in char_to_word)
    for i, char in enumerate(context):
        if char not in SQUAD_WHITESPACE:
            assert char in doc_tokens[char_to_word[i]]


def write_squad(path, context, question, answer_start, answer_text):
    data = {"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": context, "qas": [
        {"id": "q1", "question": question,
         "answers": [{"answer_start": answer_start, "text": answer_text}]}]}]}]}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@st.composite
def passages(draw):
    """(context, index of the answer's first word, of its last word, word start offsets)."""
    passage_words = draw(st.lists(words, min_size=1, max_size=60))
    gaps = draw(st.lists(separators, min_size=len(passage_words) + 1,
                         max_size=len(passage_words) + 1))
    gaps[0] = draw(st.sampled_from(["", gaps[0]]))
    gaps[-1] = draw(st.sampled_from(["", gaps[-1]]))
    context, starts = gaps[0], []
    for word, gap in zip(passage_words, gaps[1:]):
        starts.append(len(context))
        context += word + gap
    first = draw(st.integers(0, len(passage_words) - 1))
    last = draw(st.integers(first, min(first + 6, len(passage_words) - 1)))
    return context, passage_words, first, last, starts


@pytest.mark.parametrize("casing", ["uncased", "cased"])
@given(passage=passages(), question=user_text(max_words=6).filter(str.strip),
       window=st.sampled_from([(24, 4, 8), (48, 16, 12), (96, 32, 16)]))
def test_an_answer_survives_reading_windowing_and_decoding(passage, question, window, casing,
                                                           tmp_path_factory):
    context, passage_words, first, last, starts = passage
    answer_start = starts[first]
    answer_end = starts[last] + len(passage_words[last])
    answer = context[answer_start:answer_end]
    path = write_squad(tmp_path_factory.mktemp("squad") / "train.json", context, question,
                       answer_start, answer)
    if not answer.strip():  # words of characters only Python counts as space (\x1c-\x1f)
        with pytest.raises(SquadFormatError, match="is blank"):
            read_squad_examples(path, is_training=True)
        return

    [example] = read_squad_examples(path, is_training=True)
    assert example.doc_tokens == passage_words
    assert (example.start_position, example.end_position) == (first, last)

    wordpiece = tokenizer(casing)
    # A boundary word the tokenizer drops entirely (only control or format characters) has no
    # token to point at: the span cannot start or end on it, in google's code as here.
    assume(all(wordpiece.tokenize(passage_words[i]) for i in (first, last)))
    max_seq_length, doc_stride, max_query_length = window
    features = convert_squad_examples([example], wordpiece, max_seq_length, doc_stride,
                                      max_query_length, is_training=True)
    assert features.token_ids.shape == (len(features), max_seq_length)
    inside = [w for w in range(len(features)) if features.start_positions[w] > 0]
    # Decodable only from a window that holds the whole answer and gives its first token the
    # most centred view (google's rule for where a span may start); else the answer is longer
    # than a window allows.
    assume(any(features.token_is_max_context[w][features.start_positions[w]] for w in inside))
    start_logits = np.full((len(features), max_seq_length), -10.0, "float32")
    end_logits = start_logits.copy()
    start_logits[:, 0] = end_logits[:, 0] = 0.0  # [CLS]: never a valid span in v1.1
    for w in inside:
        start, end = features.start_positions[w], features.end_positions[w]
        assert first <= features.token_to_orig_map[w][start] <= features.token_to_orig_map[w][end] <= last
        start_logits[w, start] = end_logits[w, end] = 10.0
    predictions, nbest, _ = decode_squad_predictions(
        [example], features, start_logits, end_logits, max_answer_length=max_seq_length,
        do_lower_case=casing == "uncased", with_offsets=True)
    best = nbest["q1"][0]
    assert predictions["q1"] == best["text"]
    begin, stop = answer_char_span(context, best)
    assert context[begin:stop] == answer


@given(pred_text=user_text(max_words=3), orig_text=user_text(max_words=6),
       do_lower_case=st.booleans())
def test_projection_returns_a_slice_of_the_original(pred_text, orig_text, do_lower_case):
    pred_text = " ".join(pred_text.split())
    assume(pred_text)
    projected = project_to_original_text(pred_text, orig_text, do_lower_case)
    assert projected in orig_text


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | user_text(max_words=3),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["data", "paragraphs", "context", "qas", "id", "question", "answers",
                         "text", "answer_start", "is_impossible", "title"]) | st.text(max_size=4),
        children, max_size=5),
    max_leaves=20)


def mostly(good):
    """`good` about 15 times in 16, any JSON value otherwise. (Four coins: Hypothesis draws
    the ends of an integer range far more often than uniformly.)"""
    return st.lists(st.booleans(), min_size=4, max_size=4).flatmap(
        lambda coins: good if any(coins) else json_values)


@st.composite
def squad_shaped(draw):
    """SQuAD files that are right at most places and wrong at some (types, offsets, keys)."""

    def answer(context):
        start = draw(st.integers(0, max(len(context) - 1, 0)))
        length = draw(st.integers(1, 8))
        if draw(st.integers(0, 9)) == 9 or not context.strip():
            return {"text": draw(mostly(user_text(max_words=2))),
                    "answer_start": draw(mostly(st.integers(-3, 40)))}
        while not context[start].strip():  # SQuAD answers start on a word
            start = (start + 1) % len(context)
        return {"text": context[start:start + length], "answer_start": start}

    def qa(context):
        entry = {"id": draw(mostly(st.text(max_size=5))),
                 "question": draw(mostly(user_text(max_words=4).filter(str.strip))),
                 "answers": draw(mostly(st.just([answer(context)
                                                 for _ in range(draw(st.integers(1, 2)))])))}
        if draw(st.integers(0, 9)) == 9:
            entry["is_impossible"] = draw(json_values)
        return entry

    def paragraph():
        context = draw(mostly(user_text(max_words=10)))
        text = context if isinstance(context, str) else ""
        return {"context": context,
                "qas": draw(mostly(st.just([draw(mostly(st.just(qa(text))))
                                            for _ in range(draw(st.integers(1, 3)))])))}

    articles = [{"paragraphs": draw(mostly(st.just([draw(mostly(st.just(paragraph())))
                                                    for _ in range(draw(st.integers(1, 3)))])))}
                for _ in range(draw(st.integers(1, 2)))]
    return draw(mostly(st.just({"data": draw(mostly(st.just(articles)))})))


@given(content=squad_shaped(), is_training=st.booleans(), gzipped=st.booleans(),
       encoding=st.sampled_from(["utf-8"] * 4 + ["utf-16", "latin-1"]))
def test_any_json_is_read_or_refused_in_one_line(content, is_training, gzipped, encoding,
                                                 tmp_path_factory):
    raw = json.dumps(content, ensure_ascii=encoding != "utf-8").encode(encoding)
    path = tmp_path_factory.mktemp("squad") / ("file.json.gz" if gzipped else "file.json")
    path.write_bytes(gzip.compress(raw) if gzipped else raw)
    try:
        examples = read_squad_examples(path, is_training=is_training)
    except SquadFormatError as error:
        assert "\n" not in str(error) and str(path) in str(error)
        event("refused: " + str(error).split(": ", 2)[-1][:40])
        return
    event("read")
    for example in examples:
        assert isinstance(example.qas_id, str) and example.question_text.strip()
        if is_training:
            assert 0 <= example.start_position <= example.end_position < len(example.doc_tokens)


@given(raw=st.binary(max_size=300))
def test_any_bytes_are_read_or_refused_in_one_line(raw, tmp_path_factory):
    path = tmp_path_factory.mktemp("squad") / "file.json"
    path.write_bytes(raw)
    with pytest.raises(SquadFormatError) as error:
        read_squad_examples(path, is_training=False)
    assert "\n" not in str(error.value)
