"""Tests that the code-point tables agree with the reference tokenizer's Python predicates."""

import unicodedata

import numpy as np

from keras_bert.tokenization import reference_tokenizer as ref
from keras_bert.tokenization import unicode_tables as ut


def _lookup(table, cp):
    return table.blocks[table.block_index[cp >> 8] * 256 + (cp & 255)]


def test_flags_match_reference_predicates_on_every_assigned_code_point():
    tables = ut.char_tables()
    for cp in range(0x30000):  # Planes 0-2 hold every assigned character but tags/private use.
        char = chr(cp)
        if 0xD800 <= cp <= 0xDFFF or unicodedata.category(char) == "Cn":
            continue
        flags = int(_lookup(tables.flags, cp))
        dropped = cp in (0, 0xFFFD) or ref.is_control(char)
        assert bool(flags & ut.DROP) == dropped, hex(cp)
        if dropped:
            continue
        assert bool(flags & ut.SPACE) == (ref.is_whitespace(char) or char.isspace()), hex(cp)
        assert bool(flags & ut.CJK) == ref.is_cjk(char), hex(cp)
        assert bool(flags & ut.PUNCT) == ref.is_punctuation(char), hex(cp)
        assert bool(flags & ut.MN) == (unicodedata.category(char) == "Mn"), hex(cp)


def test_fold_table_is_lower_then_nfd():
    tables = ut.char_tables()
    for char in "AÉİΣẞǅÅ가ﬁa中":
        row = int(_lookup(tables.fold_index, ord(char)))
        folded = tables.fold_values[tables.fold_splits[row] : tables.fold_splits[row + 1]]
        expected = unicodedata.normalize("NFD", char.lower())
        if row == 0:
            assert expected == char
        else:
            assert "".join(map(chr, folded)) == expected


def test_sigma_context_classes():
    tables = ut.char_tables()
    flags = {c: int(_lookup(tables.flags, ord(c))) for c in "AΣ'.ʼ\u0301 1"}
    assert flags["A"] & ut.CASED and flags["Σ"] & ut.CASED
    assert all(flags[c] & ut.CASE_IGNORABLE for c in "'.ʼ\u0301")
    assert not (flags["1"] & (ut.CASED | ut.CASE_IGNORABLE))


def test_tables_are_small():
    tables = ut.char_tables()
    total = sum(
        t.blocks.nbytes + t.block_index.nbytes
        for t in (tables.flags, tables.combining_class, tables.fold_index)
    )
    assert total < 500_000  # Exported with every tokenizer graph.
    assert np.all(tables.fold_values[1:] >= 0)
