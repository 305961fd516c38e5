"""`split_sentences`: a text's sentences as character spans, by punctuation rules (no model)."""

import re

from keras_bert.api_export import keras_bert_export

# A sentence ends after `.`, `!` or `?` (and any closing quotes or brackets) when whitespace and
# then a capital letter or a digit follow (opening quotes or brackets may come first); after
# `。`, `！` or `？` whatever follows; and at a blank line, always.
_LATIN_END = re.compile(r"[.!?]+['\"\u2019\u201d)\]]*(?=\s)")
_CJK_END = re.compile(r"[\u3002\uff01\uff1f]+[\u300d\u300f\uff09\u201d\u2019]*")
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")
_OPENERS = "'\"\u2018\u201c([{\u00ab"
# Words whose period does not end a sentence when a capital follows ("Dr. Smith", "St. Louis",
# "No. 5", "Mt. Everest", "et al. The"): titles, and abbreviations that precede a name or number.
# Not "etc.", "Inc.", "Co.", "Ltd.": those end sentences as often as not.
ABBREVIATIONS = frozenset({
    "mr", "mrs", "ms", "dr", "prof", "st", "sr", "jr", "vs", "mt", "ft", "no", "nos", "fig",
    "figs", "al", "ca", "cf", "approx", "gen", "col", "lt", "sgt", "capt", "rev", "hon", "gov",
    "sen", "rep", "pres", "op", "vol", "pp",
})
# "U.S", "e.g", "i.e", "a.m": letters with inner periods (the last period is the match's).
_DOTTED = re.compile(r"(?:[^\W\d_]\.)+[^\W\d_]")


@keras_bert_export("keras_bert.retrieval.split_sentences")
def split_sentences(text):
    """The sentences of `text` as `(start, end)` character spans, in order.

    Rules, not a model: a sentence ends at `.`, `!` or `?` (with any closing quotes or brackets)
    followed by whitespace and a capital letter or digit, unless the period closes an
    abbreviation (`ABBREVIATIONS`: "Dr.", "St.", "No."...), a single-letter initial ("J. R. R.
    Tolkien") or a dotted one ("U.S.", "e.g."); at the CJK full stop, `！` and `？`; and at a
    blank line. Each span is stripped of surrounding whitespace, and together the spans cover
    every non-whitespace character of `text` exactly once.

    Args:
        text: str.

    Returns:
        list of `(start, end)` int pairs, `text[start:end]` being one sentence.

    Example:
    >>> text = "Dr. Smith went to Washington, D.C. in May. He stayed! Did he?  Yes."
    >>> [text[s:e] for s, e in keras_bert.retrieval.split_sentences(text)]
    ['Dr. Smith went to Washington, D.C. in May.', 'He stayed!', 'Did he?', 'Yes.']
    """
    if not isinstance(text, str):
        raise TypeError(f"`text` must be a str, got {type(text).__name__}.")
    cuts = {m.end() for m in _BLANK_LINE.finditer(text)}
    cuts.update(m.end() for m in _CJK_END.finditer(text))
    for match in _LATIN_END.finditer(text):
        if _ends_sentence(text, match):
            cuts.add(match.end())
    spans, begin = [], 0
    for cut in sorted(cuts) + [len(text)]:
        span = _strip(text, begin, cut)
        if span is not None:
            spans.append(span)
        begin = cut
    return spans


def _ends_sentence(text, match):
    following = len(text) - len(text[match.end():].lstrip())  # first non-whitespace after it
    while following < len(text) and text[following] in _OPENERS:
        following += 1
    if following >= len(text):
        return True
    if not (text[following].isupper() or text[following].isdigit()):
        return False
    if not match.group().startswith(".") or match.group().startswith(".."):
        return True  # "!" and "?" and an ellipsis end a sentence before a capital
    word_start = match.start()
    while word_start > 0 and not text[word_start - 1].isspace():
        word_start -= 1
    word = text[word_start:match.start()].lstrip(_OPENERS)
    if word.lower() in ABBREVIATIONS or _DOTTED.fullmatch(word):
        return False
    return not (len(word) == 1 and word.isalpha())  # an initial


def _strip(text, start, end):
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None
