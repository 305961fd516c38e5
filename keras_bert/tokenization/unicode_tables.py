"""Per-code-point tables that let TensorFlow ops reproduce the reference tokenizer exactly."""

import functools
import sys
import unicodedata

import numpy as np

from keras_bert.tokenization import reference_tokenizer as ref

# Bit flags of `CharTables.flags`. Each names the Python predicate it was computed from, so the
# in-graph tokenizer and `ReferenceTokenizer` cannot drift apart: both read Python's `unicodedata`.
DROP = 1  # Removed by `_clean_text`: NUL, U+FFFD, Cc/Cf except \t\n\r.
SPACE = 2  # Splits words: google's whitespace (-> " ") plus what `str.split()` splits on.
CJK = 4  # Ideographs that become single-character words.
PUNCT = 8  # Split off as single-character words.
MN = 16  # Nonspacing marks, removed after NFD when lower-casing.
CASE_IGNORABLE = 32  # Skipped when Python decides whether a capital sigma is word-final.
CASED = 64  # A letter with case, for the same decision.

CAPITAL_SIGMA = 0x3A3
FINAL_SIGMA = 0x3C2
_NUM_CODE_POINTS = sys.maxunicode + 1
_BLOCK = 256  # Two-level tables: a block index per 256 code points, then the shared blocks.


class TwoLevelTable:
    """A code point -> small int table stored as shared 256-entry blocks (tens of KB, not MB)."""

    def __init__(self, values):
        unique = {}  # block bytes -> block number, in order of first use
        blocks = []
        block_index = []
        for block in values.reshape(-1, _BLOCK):
            key = block.tobytes()
            if key not in unique:
                unique[key] = len(blocks)
                blocks.append(block)
            block_index.append(unique[key])
        self.block_index = np.array(block_index, np.int32)  # [0x1100]
        self.blocks = np.concatenate(blocks)  # [num_unique_blocks * 256]


class CharTables:
    """The tables `BertTokenizer` needs, built once per process from `unicodedata`.

    Attributes:
        flags: `TwoLevelTable` of uint8 bit flags (`DROP`, `SPACE`, ...).
        combining_class: `TwoLevelTable` of uint8 canonical combining classes (NFD ordering).
        fold_index: `TwoLevelTable` of int32; 0 keeps the code point, k > 0 replaces it with
            row k of `fold_values` (split by `fold_splits`): `NFD(chr(cp).lower())`.
        fold_values, fold_splits: int32 arrays of a ragged `[num_rows, None]` replacement
            table; row 0 is a placeholder.
    """

    def __init__(self):
        flags = np.zeros(_NUM_CODE_POINTS, np.uint8)
        combining = np.zeros(_NUM_CODE_POINTS, np.uint8)
        fold_index = np.zeros(_NUM_CODE_POINTS, np.int32)
        fold_rows = [[-1]]
        for cp in range(_NUM_CODE_POINTS):
            if 0xD800 <= cp <= 0xDFFF:
                continue  # Surrogates never survive strict UTF-8 decoding.
            char = chr(cp)
            category = unicodedata.category(char)
            if category in ("Cn", "Co"):
                # Unassigned and private-use code points (most of the range): kept by
                # `_clean_text`, no case, no decomposition, no combining class.
                continue
            flags[cp] = _flags(char, cp, category)
            combining[cp] = unicodedata.combining(char)
            folded = unicodedata.normalize("NFD", char.lower())
            if folded != char:
                fold_index[cp] = len(fold_rows)
                fold_rows.append([ord(c) for c in folded])
        for low, high in ref.CJK_RANGES:
            flags[low : high + 1] |= CJK  # Also the few unassigned code points in the blocks.
        _check_fold_creates_no_separators(fold_index, fold_rows, flags)
        self.flags = TwoLevelTable(flags)
        self.combining_class = TwoLevelTable(combining)
        self.fold_index = TwoLevelTable(fold_index)
        self.fold_values = np.array([c for row in fold_rows for c in row], np.int32)
        self.fold_splits = np.cumsum([0] + [len(row) for row in fold_rows]).astype(np.int32)


@functools.lru_cache(maxsize=None)
def char_tables():
    """The process-wide `CharTables` (about a second to build, so built once)."""
    return CharTables()


def _flags(char, cp, category):
    """The bit flags of one code point."""
    if cp == 0 or cp == 0xFFFD or ref.is_control(char):
        return DROP  # Dropped before anything else looks at it.
    flags = 0
    if ref.is_whitespace(char) or char.isspace():
        # `str.split()` also splits on U+2028/U+2029 (Zl/Zp), which google's cleaning keeps.
        flags |= SPACE
    if ref.is_punctuation(char):
        flags |= PUNCT
    if category == "Mn":
        flags |= MN
    return flags | _sigma_context_class(char)


def _sigma_context_class(char):
    """CASED / CASE_IGNORABLE / 0 as `str.lower()`'s final-sigma rule sees `char`.

    Python exposes neither Unicode property, so ask `str.lower()` itself: a capital sigma right
    after a cased letter is final; after a case-ignorable one, Python looks further back.
    """
    if (char + "\u03a3").lower()[-1] == "\u03c2":
        return CASED
    if ("A" + char + "\u03a3").lower()[-1] == "\u03c2":
        return CASE_IGNORABLE
    return 0


def _check_fold_creates_no_separators(fold_index, fold_rows, flags):
    """The in-graph tokenizer splits words before folding; folding must not add separators."""
    for cp in np.flatnonzero(fold_index):
        if flags[cp] & (DROP | SPACE):
            continue  # Removed before folding (e.g. U+2000 EN QUAD, whose NFD is U+2002).
        for folded in fold_rows[fold_index[cp]]:
            if flags[folded] & (DROP | SPACE):
                raise AssertionError(f"Lower-casing U+{cp:04X} produced separator U+{folded:04X}.")
