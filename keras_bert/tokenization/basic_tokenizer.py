"""`BasicTokenizer`: google-research/bert's text cleaning and word splitting as TensorFlow ops."""

import tensorflow as tf

from keras_bert.tokenization import unicode_tables as ut

_INVALID_UTF8 = (
    "keras_bert tokenization: the input text is not valid UTF-8 (the batch index of the first bad "
    "string "
    "follows). Tokenizing it would silently change the text. Decode the raw bytes with their "
    "real encoding (e.g. `raw.decode('latin-1')` in Python, or "
    "`tf.strings.unicode_transcode(text, 'ISO-8859-1', 'UTF-8')`) and pass UTF-8 strings."
)


class BasicTokenizer:
    """Splits `[batch]` strings into the words WordPiece sees, exactly as google's Python does.

    The steps are google-research/bert `BasicTokenizer.tokenize`'s, on Unicode code points: drop
    NUL, U+FFFD and Cc/Cf characters; split on whitespace with CJK ideographs as one-character
    words; if `do_lower_case`, apply `str.lower` (with its final-sigma rule) and NFD, then drop
    nonspacing marks (Mn); split off punctuation. Every character class comes from a table that
    `unicode_tables` computes with Python's `unicodedata`, the same source `ReferenceTokenizer`
    uses, so the two agree character for character. This is a plain helper (no Keras state);
    `BertTokenizer` and `learn_vocabulary` use it.

    Args:
        do_lower_case: bool. Lower-case and strip accents (google's name).

    Example:
    >>> tokenizer = BasicTokenizer(do_lower_case=True)
    >>> words, rows = tokenizer.split_words(tf.constant(["Héllo, wörld!"]))
    >>> words.numpy().tolist(), rows.numpy().tolist()
    ([b'hello', b',', b'world', b'!'], [0, 0, 0, 0])
    """

    def __init__(self, do_lower_case):
        self.do_lower_case = do_lower_case
        tables = ut.char_tables()
        self._flags = _table_constants(tables.flags)
        self._combining_class = _table_constants(tables.combining_class)
        self._fold_index = _table_constants(tables.fold_index)
        self._fold_rows = tf.RaggedTensor.from_row_splits(
            tf.constant(tables.fold_values), tf.constant(tables.fold_splits, tf.int64)
        )

    def __call__(self, text):
        """Words of each string: `[batch]` strings -> `tf.RaggedTensor` `[batch, None]` strings."""
        words, rows = self.split_words(text)
        return tf.RaggedTensor.from_value_rowids(words, rows, nrows=tf.shape(text, tf.int64)[0])

    def split_words(self, text):
        """`[B]` UTF-8 strings -> words `[W]` and the batch row of each word `[W]` (int64)."""
        text = assert_valid_utf8(text)
        code_points = tf.strings.unicode_decode(text, "UTF-8")  # [B, None]
        chars = code_points.flat_values  # [N]
        char_rows = code_points.value_rowids()  # [N]
        flags = _lookup(self._flags, chars)

        # _clean_text: drop NUL, U+FFFD and control/format characters.
        keep = tf.equal(flags & ut.DROP, 0)
        chars, flags, char_rows = [tf.boolean_mask(x, keep) for x in (chars, flags, char_rows)]

        # Whitespace split, with CJK ideographs as one-character words.
        is_space = tf.not_equal(flags & ut.SPACE, 0)
        is_cjk = tf.not_equal(flags & ut.CJK, 0)
        after_break = _previous(is_space, True) | _previous(is_cjk, True)
        starts = ~is_space & (_differs_from_previous(char_rows) | after_break | is_cjk)
        keep = ~is_space
        chars, flags, char_rows, starts = [
            tf.boolean_mask(x, keep) for x in (chars, flags, char_rows, starts)
        ]
        word_ids = tf.cumsum(tf.cast(starts, tf.int64)) - 1  # [N]
        word_rows = tf.boolean_mask(char_rows, starts)  # [num_words]

        if self.do_lower_case:
            chars, word_ids = self._lower_and_strip_accents(chars, flags, word_ids)
            flags = _lookup(self._flags, chars)

        # _run_split_on_punc: every punctuation character is a word of its own. Words emptied
        # by stripping accents have no characters left, so they vanish here.
        is_punct = tf.not_equal(flags & ut.PUNCT, 0)
        starts = _differs_from_previous(word_ids) | is_punct | _previous(is_punct, True)
        piece_ids = tf.cumsum(tf.cast(starts, tf.int64)) - 1
        num_pieces = tf.reduce_sum(tf.cast(starts, tf.int64))
        pieces = tf.RaggedTensor.from_value_rowids(chars, piece_ids, nrows=num_pieces)
        words = tf.strings.unicode_encode(pieces, "UTF-8")  # [W]
        return words, tf.gather(word_rows, tf.boolean_mask(word_ids, starts))

    def _lower_and_strip_accents(self, chars, flags, word_ids):
        """`unicodedata.normalize("NFD", word.lower())` without category Mn, per word."""
        chars = _apply_final_sigma(chars, flags, word_ids)
        # Per-code-point lower + NFD decomposition (a ragged row per code point).
        replacements = tf.gather(self._fold_rows, _lookup(self._fold_index, chars))  # [N, None]
        lengths = replacements.row_lengths()
        decomposed = replacements.flat_values
        # Row 0 ([-1]) means "keep the code point".
        decomposed = tf.where(decomposed < 0, tf.repeat(chars, lengths), decomposed)
        word_ids = tf.repeat(word_ids, lengths)
        # NFD's canonical ordering: a stable sort by combining class inside each run of marks.
        # (It matters for marks that survive accent stripping: Mc marks with a class, e.g.
        # U+1D165 and U+1D16D.)
        ccc = tf.cast(_lookup(self._combining_class, decomposed), tf.int64)
        run_ids = tf.cumsum(tf.cast(tf.equal(ccc, 0) | _differs_from_previous(word_ids), tf.int64))
        order = tf.argsort(run_ids * 256 + ccc, stable=True)
        decomposed, word_ids = tf.gather(decomposed, order), tf.gather(word_ids, order)
        # Strip accents: drop nonspacing marks.
        keep = tf.equal(_lookup(self._flags, decomposed) & ut.MN, 0)
        return tf.boolean_mask(decomposed, keep), tf.boolean_mask(word_ids, keep)


def assert_valid_utf8(text):
    """Returns `text` behind an assertion that every string is valid UTF-8."""
    # Transcoding valid UTF-8 to UTF-8 is the identity; every invalid byte gets replaced.
    transcoded = tf.strings.unicode_transcode(text, "UTF-8", "UTF-8", errors="replace")
    valid = tf.equal(transcoded, text)
    # Report the position, not the string: echoing invalid bytes would break the error message
    # itself (TensorFlow decodes it as UTF-8).
    first_bad = tf.where(~valid)[:1, 0]
    check = tf.debugging.Assert(tf.reduce_all(valid), [_INVALID_UTF8, first_bad])
    with tf.control_dependencies([check]):
        return tf.identity(text)


def _apply_final_sigma(chars, flags, word_ids):
    """Python's `str.lower` rule: a word-final capital sigma becomes final sigma (U+03C2).

    Final means: the nearest non-case-ignorable character before it in the word is cased, and
    the nearest one after it (if any) is not.
    """
    cased = tf.not_equal(flags & ut.CASED, 0)
    anchor = tf.equal(flags & ut.CASE_IGNORABLE, 0)  # Where Python's scan stops.
    num_chars = tf.shape(chars, out_type=tf.int64)[0]
    # Positions of anchors, plus a sentinel one past the end that belongs to no word.
    anchor_pos = tf.concat([tf.where(anchor)[:, 0], [num_chars]], axis=0)
    word_ids_ext = tf.concat([word_ids, [-1]], axis=0)
    cased_ext = tf.concat([cased, [False]], axis=0)
    anchors_before = tf.cumsum(tf.cast(anchor, tf.int64), exclusive=True)  # [N]
    prev_pos = tf.gather(anchor_pos, tf.maximum(anchors_before - 1, 0))
    prev_is_cased = (
        (anchors_before > 0)
        & tf.equal(tf.gather(word_ids_ext, prev_pos), word_ids)
        & tf.gather(cased_ext, prev_pos)
    )
    next_pos = tf.gather(anchor_pos, anchors_before + tf.cast(anchor, tf.int64))
    next_is_cased = tf.equal(tf.gather(word_ids_ext, next_pos), word_ids) & tf.gather(
        cased_ext, next_pos
    )
    final = tf.equal(chars, ut.CAPITAL_SIGMA) & prev_is_cased & ~next_is_cased
    return tf.where(final, ut.FINAL_SIGMA, chars)


def _table_constants(table):
    """A `TwoLevelTable` as two int32 constants."""
    return tf.constant(table.block_index, tf.int32), tf.constant(table.blocks.astype("int32"))


def _lookup(table, code_points):
    """Looks int32 code points up in a two-level table."""
    block_index, blocks = table
    block = tf.gather(block_index, code_points // 256)
    return tf.gather(blocks, block * 256 + code_points % 256)


def _previous(x, first):
    """`x` shifted right by one along axis 0, with `first` in front."""
    return tf.concat([tf.fill([1], first), x[:-1]], axis=0)


def _differs_from_previous(x):
    """True where `x[i] != x[i - 1]`, and at position 0."""
    return tf.not_equal(x, _previous(x, tf.constant(-1, x.dtype)))
