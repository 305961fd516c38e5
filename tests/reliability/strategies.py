"""Hypothesis strategies for the fuzz tests: text as users paste it, not just ASCII.

`user_text` mixes any Unicode scalar value (Hypothesis' own distribution, which favours
boundaries) with a pool of characters that broke tokenizers before: every whitespace and
line-break code point, C0/C1 controls, zero-width and bidi marks, combining marks, CJK, emoji,
Greek sigma, Turkish dotted I, ligatures, fullwidth forms, private use and unassigned code
points, and the text of BERT's special tokens.
"""

from hypothesis import strategies as st

TRICKY_CHARACTERS = (
    # Whitespace and line breaks, ASCII and Unicode (SQuAD's reader splits on \u202f too).
    " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2007\u200a\u2028\u2029\u202f\u205f\u3000"
    # Controls, format characters, zero-width and bidi marks, BOM, replacement character.
    "\x00\x01\x1b\x7f\x80\x9f\u00ad\u200b\u200c\u200d\u200e\u200f\u202a\u202e\u2060\ufeff\ufffd"
    # Combining marks (alone, stacked, after CJK), an accented capital, NFD pieces.
    "\u0300\u0301\u0316\u0345\u0489\u20dd\u0e31\u093fÉé"
    # Case mappings that change length or depend on context.
    "ΣσςİıßẞǅﬁﬀKÅ"
    # CJK, Hangul, kana, fullwidth, emoji with modifiers and flags, RTL scripts.
    "漢字中文かなカナ한글ＡＺａｚ０９😀👍🏽👨‍👩‍👧🇺🇳עברيةमा"
    # Punctuation and symbols, ASCII and not.
    "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~«»„“”‘’—–…·¿¡©®°±×÷€£¥§¶†"
    # Private use, unassigned, tag, and a supplementary-plane math letter.
    "\ue000\U000f0000\u0378\U000e0001\U0001d400"
)

SPECIAL_TOKEN_TEXT = ("[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]", "[unused0]", "##", "##s")

_any_character = st.characters(blacklist_categories=("Cs",))  # every scalar value but surrogates
_characters = st.one_of(_any_character, st.sampled_from(TRICKY_CHARACTERS),
                        st.sampled_from("abcdefghijklmnopqrstuvwxyz ABCXYZ 0123456789 "))
_words = st.one_of(st.text(_characters, min_size=1, max_size=12), st.sampled_from(SPECIAL_TOKEN_TEXT),
                   st.sampled_from(("the", "answer", "Steve", "Smith's", "U.S.A.", "don't")))


@st.composite
def user_text(draw, max_words=24):
    """A string of words and separators, each drawn from the mixture above."""
    parts = draw(st.lists(st.tuples(_words, st.text(_characters, max_size=3)), max_size=max_words))
    return "".join(word + separator for word, separator in parts)


def long_words():
    """Single words near the WordPiece limit (200 characters), where both tokenizers give [UNK]."""
    return st.integers(195, 205).flatmap(lambda n: st.text(st.sampled_from("abé漢"), min_size=n,
                                                           max_size=n))
