"""Golden tests pinning `ReferenceTokenizer` to google-research/bert's tokenization semantics."""

import pytest

from keras_bert.tokenization import reference_tokenizer as ref
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.keras_bert.tokenization.hard_cases import vocab_path

# google-research/bert tokenization_test.py's vocabulary, plus the [PAD]/[MASK] every vocab needs.
GOLDEN_VOCAB = [
    "[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed", "wa", "un", "runn", "##ing", ",",
    "[PAD]", "[MASK]", "ah", "##h", "zz", "\u535a", "\u63a8", "hello", "!", "?", "how", "are",
    "you", "$", "^", "`", "x", "##x",
]  # fmt: skip


@pytest.fixture(scope="module")
def tokenizer():
    return ReferenceTokenizer(GOLDEN_VOCAB)


@pytest.fixture(scope="module")
def uncased():
    return ReferenceTokenizer(vocab_path("uncased"))


def test_full_tokenizer_golden(tokenizer):
    tokens = tokenizer.tokenize("UNwant\u00e9d,running")
    assert tokens == ["un", "##want", "##ed", ",", "runn", "##ing"]
    assert tokenizer.convert_tokens_to_ids(tokens) == [7, 4, 5, 10, 8, 9]
    assert tokenizer.encode("UNwant\u00e9d,running") == [7, 4, 5, 10, 8, 9]


def test_chinese_characters_become_single_words(tokenizer):
    assert tokenizer.basic_tokenize("ah\u535a\u63a8zz") == ["ah", "\u535a", "\u63a8", "zz"]


def test_basic_tokenizer_lower_cases_and_strips_accents(tokenizer):
    text = " \tHeLLo!how  \n Are yoU?  "
    assert tokenizer.basic_tokenize(text) == ["hello", "!", "how", "are", "you", "?"]
    assert tokenizer.basic_tokenize("H\u00e9llo") == ["hello"]


def test_basic_tokenizer_without_lower_case_keeps_case_and_accents():
    tokenizer = ReferenceTokenizer(GOLDEN_VOCAB, do_lower_case=False)
    text = " \tHeLLo!how  \n Are yoU?  "
    assert tokenizer.basic_tokenize(text) == ["HeLLo", "!", "how", "Are", "yoU", "?"]
    assert tokenizer.basic_tokenize("H\u00e9llo") == ["H\u00e9llo"]


def test_wordpiece_greedy_longest_match_and_unknown_words(tokenizer):
    assert tokenizer.tokenize("") == []
    assert tokenizer.tokenize("unwanted running") == ["un", "##want", "##ed", "runn", "##ing"]
    # One unmatchable piece turns the whole word into [UNK], not just the piece.
    assert tokenizer.wordpiece_tokenize("unwantedX") == ["[UNK]"]
    assert tokenizer.tokenize("unwantedq running") == ["[UNK]", "runn", "##ing"]
    assert tokenizer.tokenize("unwantedx") == ["un", "##want", "##ed", "##x"]


def test_empty_and_whitespace_only_text(tokenizer):
    for text in ["", " ", "\t\n\r", "\u00a0\u3000", "\x00\ufffd\u200b"]:
        assert tokenizer.tokenize(text) == [], repr(text)


def test_control_and_format_characters_are_removed_not_split_on(tokenizer):
    # Zero-width space/joiner, soft hyphen (Cf) and BEL (Cc) vanish; the word stays whole.
    assert tokenizer.basic_tokenize("ab\u200bc\u200dd\u00ade\x07f") == ["abcdef"]
    assert tokenizer.basic_tokenize("a\x00b\ufffdc") == ["abc"]
    # Private use (Co) and unassigned (Cn) characters are kept: google only drops Cc and Cf.
    assert tokenizer.basic_tokenize("a\ue000b\u0378c") == ["a\ue000b\u0378c"]


def test_whitespace_includes_zs_and_python_split_separators(tokenizer):
    text = "a\u00a0b\u2009c\u3000d\te\nf\u2028g\u2029h"
    assert tokenizer.basic_tokenize(text) == list("abcdefgh")


def test_ascii_symbols_are_punctuation(tokenizer):
    assert tokenizer.basic_tokenize("$5^x`y~z+1") == list("$5^x`y~z+1")
    # Non-ASCII symbols (category S*) are not punctuation; Unicode P* is.
    assert tokenizer.basic_tokenize("a©b¿c") == ["a©b", "¿", "c"]


def test_character_class_goldens():
    # google-research/bert tokenization_test.py's predicate goldens.
    assert all(ref.is_whitespace(c) for c in " \t\r\n\u00a0")
    assert not any(ref.is_whitespace(c) for c in "A-")
    assert ref.is_control("\u0005")
    assert not any(ref.is_control(c) for c in "A \t\r\U0001f4a9")
    assert all(ref.is_punctuation(c) for c in "-$`.")
    assert not any(ref.is_punctuation(c) for c in "A ")
    assert ref.is_cjk("\u4e00") and ref.is_cjk("\U0002b820") and not ref.is_cjk("\u3042")


def test_python_lower_case_rules(uncased):
    # str.lower, not ICU case folding: "ß" stays, "İ" loses its dot, sigma is final by context.
    assert uncased.basic_tokenize("STRAßE İstanbul") == ["straße", "istanbul"]
    assert uncased.basic_tokenize("ΟΔΟΣ ΟΔΟΣ.") == ["οδος", "οδος", "."]
    assert uncased.basic_tokenize("ΣΑΣ") == ["σας"]


def test_nfd_and_mark_stripping(uncased):
    # Hangul syllables decompose into jamo; Mc vowel signs (Devanagari) are kept, Mn dropped.
    assert uncased.basic_tokenize("한") == ["\u1112\u1161\u11ab"]
    assert uncased.basic_tokenize("हिन्दी") == ["\u0939\u093f\u0928\u0926\u0940"]
    assert uncased.basic_tokenize("x\u0301\u0301") == ["x"]
    assert uncased.basic_tokenize("\u0301 \u0301") == []  # Words of only marks vanish.


def test_max_input_chars_per_word_counts_characters(uncased):
    def spells(tokens, word):  # word pieces that are not [UNK] and spell the word
        return "[UNK]" not in tokens and "".join(t.removeprefix("##") for t in tokens) == word

    assert spells(uncased.tokenize("b" * 200), "b" * 200)
    assert uncased.tokenize("b" * 201) == ["[UNK]"]
    # 150 two-byte characters are 300 bytes but 150 characters: under the limit (uncased strips
    # the accent).
    assert spells(uncased.tokenize("\u00e9" * 150), "e" * 150)
    short = ReferenceTokenizer(GOLDEN_VOCAB, max_input_chars_per_word=4)
    assert short.tokenize("want wanted") == ["want", "[UNK]"]


def test_real_vocab_goldens(uncased):
    assert uncased.encode("Hello, World!") == [7592, 1010, 2088, 999]
    assert uncased.tokenize("unaffable") == ["una", "##ffa", "##ble"]


def test_bytes_input_is_decoded_as_utf8(tokenizer):
    assert tokenizer.tokenize("H\u00e9llo!".encode("utf-8")) == ["hello", "!"]


def test_invalid_utf8_bytes_raise_with_offset(tokenizer):
    with pytest.raises(ValueError, match=r"not valid UTF-8: byte offset 3 .*latin-1"):
        tokenizer.tokenize(b"abc\xe9def")


def test_non_text_input_raises_type_error(tokenizer):
    with pytest.raises(TypeError, match="str or UTF-8 bytes"):
        tokenizer.tokenize(12)


def test_id_conversions(tokenizer):
    assert tokenizer.convert_ids_to_tokens([7, 4, 5]) == ["un", "##want", "##ed"]
    assert tokenizer.convert_tokens_to_ids(["want", "nope"]) == [3, 0]  # Unknown -> [UNK] (id 0).
    with pytest.raises(IndexError, match="outside the vocabulary"):
        tokenizer.convert_ids_to_tokens([len(GOLDEN_VOCAB)])


def test_single_token_lookups_match_bert_tokenizers_methods(tokenizer):
    # The same names and errors as `BertTokenizer.token_to_id` / `id_to_token`.
    assert tokenizer.token_to_id("want") == 3 and tokenizer.id_to_token(3) == "want"
    with pytest.raises(ValueError, match="not in the vocabulary"):
        tokenizer.token_to_id("nope")
    with pytest.raises(ValueError, match="outside the vocabulary"):
        tokenizer.id_to_token(len(GOLDEN_VOCAB))
