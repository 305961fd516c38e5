"""Raw-text SQuAD serving: question and context strings in, answer text out, in TensorFlow ops."""

import os

import tensorflow as tf

import keras_bert
from keras_bert.tokenization import BasicTokenizer

# Python's `str.isspace()` characters (RE2's `\s` lacks \v, \x1c-\x1f, \x85 and Unicode spaces).
_PY_SPACE = r"[\t-\r\x{1c}-\x{1f}\x{85}\p{Z}]"
# The characters SQuAD splits a context on (`keras_bert.data`, google's run_squad.py).
_SQUAD_SPACES = (0x20, 0x09, 0x0D, 0x0A, 0x202F)
# Scores of non-candidates. Not -inf: `unsorted_segment_max` starts from the lowest finite value.
_NO_SCORE = tf.float64.min


def squad_text_function(
    model,
    vocabulary,
    do_lower_case=True,
    max_seq_length=384,
    doc_stride=128,
    max_query_length=64,
    n_best_size=20,
    max_answer_length=30,
):
    """A SavedModel-ready function from raw question and context strings to SQuAD answers.

    TensorFlow ops reproduce `keras_bert.data.convert_squad_examples`, `model` and
    `keras_bert.data.decode_squad_predictions` (v1.1: always a span) answer for answer: SQuAD's
    whitespace words, each WordPiece-tokenized in the graph (`keras_bert.BertTokenizer`);
    `doc_stride` windows (all windows of a call form one model batch); the best
    `start_logit + end_logit` among each window's `n_best_size` best starts and ends (start in
    its most-centred window, at most `max_answer_length` tokens, first one on ties); and
    google-research/bert's `get_final_text`, which maps the wordpieces back onto the words.

    The result is a `tf.Module`: track it and `model` in a `keras.export.ExportArchive`; a
    vocabulary path becomes a SavedModel asset. The SavedModel runs with only `tensorflow` and
    `tensorflow_text` imported. Limits: memory grows with the total context length of a call;
    an example whose top spans all fail the checks gets `""` and score 0, as in Python.

    Args:
        model: a `keras_bert.BertQuestionAnswerer`, or any model taking the int32 dict
            `token_ids`, `segment_ids`, `padding_mask` `[windows, max_seq_length]` and
            returning `start_logits`, `end_logits`.
        vocabulary: str path of the model's `vocab.txt` (becomes an asset), or a list of tokens.
        do_lower_case: bool, lower-case and strip accents (google's name); match the
            checkpoint. Defaults to `True`.
        max_seq_length, doc_stride, max_query_length: int, google-research/bert's window flags.
        n_best_size, max_answer_length: int, google-research/bert's decoding flags.

    Returns:
        A callable `(question, context)`, string tensors `[batch]` (UTF-8), returning a dict of
        `[batch]` tensors: `answer_text` (string), `score` (float32, `start_logit +
        end_logit`), `start_logit`, `end_logit` (float32), and `answer_start`, `answer_end`
        (int32; -1 for `""`), the code-point offsets (Python `str` indices) of the answer's
        first character and one past its last in `context`. `context[answer_start:answer_end]`
        is the answer up to whitespace: `answer_text` joins words with single spaces, as the
        Python pipeline does. Empty or whitespace-only text, invalid UTF-8 and unequal batch
        sizes raise `tf.errors.InvalidArgumentError` naming the field and the example index,
        e.g. `context[3] is empty or only whitespace`.

    Example:
    >>> serve = squad_text_function(qa_model, "vocab.txt")  # doctest: +SKIP
    >>> archive = keras.export.ExportArchive()  # doctest: +SKIP
    >>> archive.track(qa_model); archive.track(serve)  # doctest: +SKIP
    >>> archive.add_endpoint("serve_text", serve, input_signature=[
    ...     tf.TensorSpec([None], tf.string, name="question"),
    ...     tf.TensorSpec([None], tf.string, name="context")])  # doctest: +SKIP
    >>> archive.write_out("qa_text")  # doctest: +SKIP

    Reference:
        google-research/bert, `run_squad.py` (`convert_examples_to_features`,
        `write_predictions`, `get_final_text`).
    """
    positive = dict(max_query_length=max_query_length, doc_stride=doc_stride,
                    n_best_size=n_best_size, max_answer_length=max_answer_length)
    for name, value in positive.items():
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}.")
    if max_seq_length - max_query_length - 3 < 1:
        raise ValueError(
            f"max_seq_length={max_seq_length} leaves no room for the context after a "
            f"{max_query_length}-token question and 3 special tokens; raise max_seq_length or "
            "lower max_query_length."
        )
    return _SquadText(model, vocabulary, do_lower_case, max_seq_length, doc_stride,
                      max_query_length, n_best_size, max_answer_length)


class _SquadText(tf.Module):
    """What `squad_text_function` returns; tracks the tokenizer and the id -> token table.

    Shapes: B examples, W context words, N windows, S = max_seq_length, K = n-best.
    """

    def __init__(self, model, vocabulary, do_lower_case, max_seq_length, doc_stride,
                 max_query_length, n_best_size, max_answer_length):
        super().__init__(name="squad_text")
        self.model = model
        self.tokenizer = keras_bert.BertTokenizer(vocabulary, do_lower_case=do_lower_case)
        self.id_to_token = _id_to_token_table(vocabulary, self.tokenizer.get_vocabulary())
        self.basic_tokenizer = BasicTokenizer(do_lower_case)
        self.seq_length = max_seq_length
        self.doc_stride = doc_stride
        self.max_query_length = max_query_length
        self.n_best_size = min(n_best_size, max_seq_length)
        self.max_answer_length = max_answer_length

    @tf.autograph.experimental.do_not_convert  # No Python control flow on tensors.
    def __call__(self, question, context):
        question, context = _checked_inputs(question, context)
        words = _context_words(context)
        query = self.tokenizer(question)[:, : self.max_query_length]  # [B, None] int32
        pieces = self.tokenizer(words["text"])  # [W, None]: each word on its own, as Python
        doc = tf.RaggedTensor.from_row_splits(
            pieces.values, tf.gather(pieces.row_splits, words["row_splits"]))  # [B, None]
        windows = _windows(query.row_lengths(), doc.row_lengths(), self.seq_length,
                           self.doc_stride)
        inputs = self._model_inputs(query, doc, windows)
        outputs = self.model(inputs, training=False)
        best = self._best_spans(windows, tf.cast(outputs["start_logits"], tf.float32),
                                tf.cast(outputs["end_logits"], tf.float32))
        # The answer's wordpieces, and the context words they came from.
        flat = best["window"] * self.seq_length
        ids = tf.gather(tf.reshape(inputs["token_ids"], [-1]),
                        tf.ragged.range(flat + best["start"], flat + best["end"] + 1))
        span_words = _span_words(best, windows, pieces, words["row_splits"])
        answer = self._answer_text(ids, span_words, words)
        return {
            "answer_text": tf.where(best["found"], answer["text"], ""),
            "score": tf.cast(tf.cast(best["start_logit"], tf.float64)
                             + tf.cast(best["end_logit"], tf.float64), tf.float32),
            "start_logit": best["start_logit"],
            "end_logit": best["end_logit"],
            "answer_start": tf.cast(tf.where(best["found"], answer["start"], -1), tf.int32),
            "answer_end": tf.cast(tf.where(best["found"], answer["end"], -1), tf.int32),
        }

    def _model_inputs(self, query, doc, windows):
        """`[CLS] question [SEP] window [SEP]` `[N, S]`, zero-padded as in Python."""
        example, first = windows["example"], windows["first_doc"]
        piece = windows["piece_base"] + first  # [N] doc piece of the window's first token
        num_windows = tf.shape(example)[0]
        special = lambda token: tf.RaggedTensor.from_tensor(  # noqa: E731
            tf.fill([num_windows, 1], self.tokenizer.token_to_id(token)))
        tokens = tf.concat([
            special("[CLS]"), tf.gather(query, example), special("[SEP]"),
            tf.gather(doc.values, tf.ragged.range(piece, piece + windows["length"])),
            special("[SEP]")], axis=1)
        position = tf.range(self.seq_length, dtype=tf.int64)[None, :]
        last = (first + windows["length"])[:, None]  # the final [SEP]
        return {
            "token_ids": tokens.to_tensor(0, shape=[None, self.seq_length]),
            "segment_ids": tf.cast((position >= first[:, None]) & (position <= last), tf.int32),
            "padding_mask": tf.cast(position <= last, tf.int32),
        }

    def _best_spans(self, windows, start_logits, end_logits):
        """Each example's best candidate; ties go to the first in Python's candidate order."""
        k = self.n_best_size
        start_logit, start = tf.math.top_k(start_logits, k)  # [N, K]; ties: lower index first
        end_logit, end = tf.math.top_k(end_logits, k)
        start, end = tf.cast(start, tf.int64), tf.cast(end, tf.int64)
        first = windows["first_doc"][:, None]
        last = first + windows["length"][:, None] - 1
        start_ok = (start >= first) & (start <= last) & _is_max_context(windows, start)
        end_ok = (end >= first) & (end <= last)
        s, e = start[:, :, None], end[:, None, :]  # [N, K, 1], [N, 1, K]
        valid = (start_ok[:, :, None] & end_ok[:, None, :] & (e >= s)
                 & (e - s + 1 <= self.max_answer_length))
        # As Python: float32 logits added as float64.
        score = (tf.cast(start_logit, tf.float64)[:, :, None]
                 + tf.cast(end_logit, tf.float64)[:, None, :])
        score = tf.reshape(tf.where(valid, score, _NO_SCORE), [-1, k * k])  # [N, K * K]
        window_best = tf.reduce_max(score, axis=1)  # [N]
        pair = _first_index_of(score, window_best[:, None])  # start rank * K + end rank
        num_examples = tf.size(windows["count"])
        example_best = tf.math.unsorted_segment_max(
            window_best, windows["example"], num_examples)  # [B]
        is_best = tf.equal(window_best, tf.gather(example_best, windows["example"]))
        number = tf.range(tf.size(window_best, out_type=tf.int64))
        window = tf.math.unsorted_segment_min(  # [B] the first window with the best score
            tf.where(is_best, number, tf.int64.max), windows["example"], num_examples)
        pair = tf.gather(pair, window)
        pick = lambda x, rank: tf.gather(tf.gather(x, window), rank, batch_dims=1)  # noqa: E731
        found = example_best > _NO_SCORE
        return {
            "window": window, "found": found,
            "start": tf.where(found, pick(start, pair // k), 0),
            "end": tf.where(found, pick(end, pair % k), 0),
            "start_logit": tf.where(found, pick(start_logit, pair // k), 0.0),
            "end_logit": tf.where(found, pick(end_logit, pair % k), 0.0),
        }

    def _answer_text(self, ids, span_words, words):
        """google's `get_final_text` of the span's pieces `[B, None]` and words `[B, None]`."""
        pred_text = tf.strings.reduce_join(
            self.id_to_token.lookup(tf.cast(ids, tf.int64)), separator=" ", axis=1)
        pred_text = tf.strings.regex_replace(pred_text, " ##", "")
        pred_text = _join_python_split(tf.strings.regex_replace(pred_text, "##", ""))
        word_text = tf.gather(words["text"], span_words)  # [B, None]
        orig_text = tf.strings.reduce_join(word_text, separator=" ", axis=1)
        # basic_tokenize(" ".join(words)) == the words' basic tokens: it splits on spaces first.
        basic, rows = self.basic_tokenizer.split_words(word_text.flat_values)
        tok_text = tf.strings.reduce_join(tf.RaggedTensor.from_value_rowids(
            basic, tf.gather(word_text.value_rowids(), rows), nrows=word_text.nrows()),
            separator=" ", axis=1)
        text, first, last = tf.map_fn(
            _project_to_original_text, (pred_text, tok_text, orig_text),
            fn_output_signature=(tf.string, tf.int64, tf.int64))
        # Context offsets of the span's non-space characters, in order.
        offsets = tf.ragged.range(tf.gather(words["char_start"], span_words.flat_values),
                                  tf.gather(words["char_end"], span_words.flat_values))
        offsets = tf.RaggedTensor.from_row_splits(
            offsets.values, tf.gather(offsets.row_splits, span_words.row_splits))  # [B, None]
        row = offsets.row_splits[:-1]
        return {
            "text": text,
            "start": tf.gather(offsets.values, row + first),
            "end": tf.gather(offsets.values, row + last) + 1,
        }


def _span_words(best, windows, pieces, word_splits):
    """The context words (batch-wide indices) `[B, None]` under each best span; an example
    without a span gets its first word (every context has one)."""
    piece_base = tf.gather(windows["piece_base"], best["window"])  # doc piece at position 0
    piece_word = tf.concat([pieces.value_rowids(), [0]], axis=0)  # [P + 1], a spare last
    no_piece = tf.size(pieces.values, out_type=tf.int64)

    def word_at(position):
        piece = tf.where(best["found"], piece_base + position, no_piece)
        return tf.where(best["found"], tf.gather(piece_word, piece), word_splits[:-1])

    return tf.ragged.range(word_at(best["start"]), word_at(best["end"]) + 1)


def _windows(query_length, doc_length, seq_length, doc_stride):
    """Python's `_doc_windows` for `[B]` examples: one entry per window `[N]` (int64)."""
    room = seq_length - query_length - 3  # [B] doc tokens per window
    stride = tf.minimum(room, doc_stride)
    count = 1 + tf.maximum(-((room - doc_length) // stride), 0)  # 1 + ceil((n - room) / stride)
    example = tf.repeat(tf.range(tf.size(count, out_type=tf.int64)), count)  # [N]
    index = tf.ragged.range(count).flat_values  # [N] window number inside its example
    start = index * tf.gather(stride, example)
    first_doc = tf.gather(query_length, example) + 2  # after [CLS] question [SEP]
    doc_base = tf.gather(tf.concat([[0], tf.cumsum(doc_length)], axis=0), example)
    return {
        "example": example, "index": index, "start": start, "first_doc": first_doc,
        "length": tf.minimum(tf.gather(doc_length, example) - start, tf.gather(room, example)),
        "piece_base": doc_base + start - first_doc,  # batch-wide doc piece at position 0
        "count": count, "stride": stride, "room": room, "doc_length": doc_length,
    }


def _is_max_context(windows, position):
    """Python's `_is_max_context` at window positions `[N, K]` (the doc positions matter)."""
    example = windows["example"][:, None, None]
    doc = (windows["start"][:, None] + position - windows["first_doc"][:, None])[..., None]
    stride = tf.gather(windows["stride"], example)
    # Only windows j with j * stride <= doc < j * stride + room can hold the token: T of them.
    num_others = tf.maximum(tf.reduce_max((windows["room"] - 1) // windows["stride"] + 1), 1)
    other = doc // stride - tf.range(num_others, dtype=tf.int64)  # [N, K, T]
    other_start = other * stride
    other_length = tf.minimum(tf.gather(windows["doc_length"], example) - other_start,
                              tf.gather(windows["room"], example))
    other_end = other_start + other_length - 1
    holds = ((other >= 0) & (other < tf.gather(windows["count"], example))
             & (doc >= other_start) & (doc <= other_end))
    # Python's float64 arithmetic, so equal scores are equal here too (the first one wins).
    score = tf.cast(tf.minimum(doc - other_start, other_end - doc), tf.float64) + (
        0.01 * tf.cast(other_length, tf.float64))
    score = tf.where(holds, score, -float("inf"))
    best = holds & tf.equal(score, tf.reduce_max(score, axis=-1, keepdims=True))
    first_best = tf.reduce_min(tf.where(best, other, tf.int64.max), axis=-1)
    return tf.equal(first_best, windows["index"][:, None])


def _id_to_token_table(vocabulary, tokens):
    """id -> token; from the vocab file itself (a SavedModel asset) when given a path."""
    if isinstance(vocabulary, (str, os.PathLike)):
        initializer = tf.lookup.TextFileInitializer(
            os.fspath(vocabulary), tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER,
            tf.string, tf.lookup.TextFileIndex.WHOLE_LINE)
    else:
        initializer = tf.lookup.KeyValueTensorInitializer(
            tf.range(len(tokens), dtype=tf.int64), tf.constant(tokens, tf.string))
    table = tf.lookup.StaticHashTable(initializer, default_value="[UNK]")
    read = table.lookup(tf.range(len(tokens), dtype=tf.int64)).numpy()
    if int(table.size()) != len(tokens) or [t.decode("utf-8") for t in read] != tokens:
        raise ValueError(
            f"{vocabulary}: TensorFlow reads this vocabulary file differently from "
            "keras_bert.load_vocabulary (e.g. CRLF line ends or a trailing blank line). Rewrite "
            "it with keras_bert.write_vocabulary(keras_bert.load_vocabulary(path), new_path)."
        )
    return table


def _checked_inputs(question, context):
    """`question`, `context` behind assertions that every example is usable."""
    question = tf.convert_to_tensor(question, tf.string)
    context = tf.convert_to_tensor(context, tf.string)
    checks = [tf.debugging.assert_equal(
        tf.size(question), tf.size(context),
        message="squad_text_function: question and context need the same batch size (one "
                "context per question; repeat a shared context for each of its questions)")]
    for name, text in (("question", question), ("context", context)):
        utf8 = tf.strings.unicode_transcode(text, "UTF-8", "UTF-8", errors="replace")
        blank = tf.strings.regex_full_match(text, _PY_SPACE + "*")
        for ok, problem in ((tf.equal(utf8, text), "is not valid UTF-8; pass UTF-8 text"),
                            (~blank, f"is empty or only whitespace; every example needs a {name}")):
            # Reads e.g. "squad_text_function: context[3] is empty or only whitespace; ...".
            message = tf.strings.format(f"squad_text_function: {name}{{}} {problem}.",
                                        tf.where(~ok)[:1, 0])
            checks.append(tf.debugging.Assert(tf.reduce_all(ok), [message]))
    with tf.control_dependencies(checks):
        return tf.identity(question), tf.identity(context)


def _context_words(context):
    """SQuAD's `split_on_whitespace` of `[B]` contexts: words `[W]` and where they are."""
    chars = tf.strings.unicode_decode(context, "UTF-8")  # [B, None] code points
    code, row = chars.flat_values, chars.value_rowids()
    offset = tf.range(tf.size(code, out_type=tf.int64)) - tf.gather(chars.row_splits, row)
    space = tf.reduce_any(code[:, None] == tf.constant(_SQUAD_SPACES)[None, :], axis=1)
    begins = ~space & (tf.concat([[True], space[:-1]], axis=0) | tf.equal(offset, 0))
    word = tf.cumsum(tf.cast(begins, tf.int64)) - 1
    letters = tf.RaggedTensor.from_value_rowids(
        tf.boolean_mask(code, ~space), tf.boolean_mask(word, ~space),
        nrows=tf.reduce_sum(tf.cast(begins, tf.int64)))  # [W, None]
    char_start = tf.boolean_mask(offset, begins)  # [W] code-point offset in the context
    return {
        "text": tf.strings.unicode_encode(letters, "UTF-8"),  # [W]
        "row_splits": tf.RaggedTensor.from_value_rowids(
            char_start, tf.boolean_mask(row, begins), nrows=tf.size(context, out_type=tf.int64)
        ).row_splits,  # [B + 1]: the words of example b are [row_splits[b], row_splits[b + 1])
        "char_start": char_start,
        "char_end": char_start + letters.row_lengths(),
    }


def _join_python_split(text):
    """`" ".join(text.split())` with Python's whitespace."""
    text = tf.strings.regex_replace(text, _PY_SPACE + "+", " ")
    return tf.strings.regex_replace(text, "^ | $", "")


def _first_index_of(values, target):
    """Index of the first `values[i, j] == target[i]` along axis 1 (int64 `[rows]`)."""
    index = tf.range(tf.shape(values, out_type=tf.int64)[1])[None, :]
    return tf.reduce_min(tf.where(tf.equal(values, target), index, tf.int64.max), axis=1)


def _project_to_original_text(args):
    """`get_final_text` of one answer: `(text, first, last)`, its non-space character range."""
    pred_text, tok_text, orig_text = args
    tok = tf.strings.unicode_decode(tok_text, "UTF-8")
    orig = tf.strings.unicode_decode(orig_text, "UTF-8")
    tok_ns, orig_ns = tf.not_equal(tok, 32), tf.not_equal(orig, 32)  # not " "
    # tok_text.find(pred_text); a byte match is a character match in valid UTF-8.
    parts = tf.strings.split(tok_text, sep=pred_text, maxsplit=1)
    found = tf.not_equal(pred_text, "") & (tf.size(parts) > 1)
    start = tf.strings.length(parts[0], unit="UTF8_CHAR")
    end = start + tf.strings.length(pred_text, unit="UTF8_CHAR") - 1
    at = lambda x, i: tf.gather(x, tf.clip_by_value(i, 0, tf.size(tok)))  # noqa: E731
    tok_ns_ext = tf.concat([tok_ns, [False]], axis=0)
    num_ns = tf.reduce_sum(tf.cast(orig_ns, tf.int64))
    # Else google returns orig_text whole: the alignment of the space-free texts failed.
    ok = (found & tf.equal(tf.reduce_sum(tf.cast(tok_ns, tf.int64)), num_ns)
          & at(tok_ns_ext, start) & at(tok_ns_ext, end))
    tok_to_ns = tf.concat([tf.cumsum(tf.cast(tok_ns, tf.int64)) - 1, [0]], axis=0)
    first = tf.where(ok, at(tok_to_ns, start), 0)
    last = tf.where(ok, at(tok_to_ns, end), num_ns - 1)
    ns_to_orig = tf.concat([tf.where(orig_ns)[:, 0], [0]], axis=0)
    begin = tf.gather(ns_to_orig, tf.minimum(first, num_ns))
    length = tf.gather(ns_to_orig, tf.minimum(last, num_ns)) - begin + 1
    sliced = tf.strings.substr(orig_text, begin, length, unit="UTF8_CHAR")
    return tf.where(ok, sliced, orig_text), first, last
