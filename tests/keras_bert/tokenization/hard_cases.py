"""Hard tokenizer inputs: every Unicode corner where BERT tokenizers are known to drift apart."""

import gzip
import json

from tests.data_paths import shared_data_dir

# (label, text). Each targets one rule of google-research/bert's BasicTokenizer/WordPiece.
HARD_CASES = (
    ("google golden", "UNwant\u00e9d,running"),
    ("accents", "Café naïve résumé coöperate Ångström Øresund Łódź"),
    ("compatibility chars (NFKC would fold them; NFD does not)", "ﬁnancial ﬂow x² ½ ™ ℃"),
    ("CJK, kana, hangul", "中国人民 日本語のテキスト 한국어 텍스트"),
    ("CJK glued to latin", "混合mixed文字text"),
    (
        "CJK extension blocks and compatibility ideographs",
        "\U00020000\U0002a700\U0002b740\U0002b820\U0002b920\U0002cea0 \U0002f800 \uf900",
    ),
    ("emoji, skin tone, ZWJ sequence, flag, variation selector", "😀 👍🏽 👨\u200d👩\u200d👧 🇺🇸 ❤️"),
    (
        "format chars: ZWSP, ZWNJ, ZWJ, soft hyphen, BOM (removed, not split on)",
        "zero\u200bwidth\u200cjoiner\u200dsoft\u00adhyphen\ufeffbom",
    ),
    ("C0/C1 controls", "ctrl\x00nul\x01\x07bell\x1bEsc\x7fdel\x85nel\x9c"),
    ("controls that Python's str.split treats as whitespace", "a\x0bb\x0cc \x1c\x1d\x1e\x1fd"),
    ("99 chars", "a" * 99),
    ("101 chars (over HF's default 100)", "a" * 101),
    ("200 chars (google's limit)", "b" * 200),
    ("201 chars", "b" * 201),
    ("150 two-byte chars (300 bytes, under 200 chars)", "\u00e9" * 150),
    ("201 two-byte chars", "\u00e9" * 201),
    ("combining marks stripped before the length check", "x" + "\u0301" * 250),
    ("empty", ""),
    ("one space", " "),
    ("tabs and newlines only", "\t\n\r "),
    ("NBSP and other Zs", "\u00a0\u2000\u2003\u2009\u202f\u205f\u3000\u1680"),
    ("NBSP between words", "a\u00a0b\u2009c\u3000d"),
    ("line and paragraph separators (Zl, Zp)", "line\u2028sep\u2029para"),
    ("German sharp s (ICU folds to ss)", "straße STRASSE ß ẞ"),
    ("Turkish dotted I", "İstanbul ISTANBUL ıi"),
    ("Greek final sigma", "ΟΔΟΣ ΟΔΟΣ. ΣΑΣ Σ ʼΣ"),
    ("Greek with tonos and polytonic", "Ελληνικά κείμενο ὅτι ᾅ"),
    ("Arabic with harakat", "العربية مَرْحَبًا بِكُمْ"),
    ("Hebrew with niqqud", "עִבְרִית"),
    ("Devanagari (spacing marks Mc are kept)", "हिन्दी भाषा"),
    ("Tamil", "தமிழ்"),
    ("Thai", "ภาษาไทย"),
    ("Cyrillic", "Русский ТЕКСТ Ёё"),
    (
        "combining marks and NFD reordering",
        "e\u0301 a\u0300\u0316 o\u0308\u0304 x\U0001d16d\U0001d165 \u0345",
    ),
    ("mixed scripts in one word", "abcабвαβγ漢字かな"),
    (
        "ASCII symbols google treats as punctuation",
        "$100 ^caret `tick` ~tilde @at #hash 50% a+b=c <tag> {brace} [bracket] |pipe| \\back",
    ),
    ("Unicode punctuation", "«quotes» „German“ ‘single’ — em–en … · ¿Qué? ¡Sí!"),
    ("Unicode symbols (not punctuation)", "©®° ± × ÷ € £ ¥ § ¶ †"),
    ("tabs and newlines", "tab\tseparated\nnew\r\nlines"),
    ("special-token strings in raw text", "[MASK] [CLS] [SEP] [PAD] [UNK] [unused0] [mask]"),
    ("private use", "\ue000private\U000f0000use"),
    ("unassigned and tag chars", "\u0378unassigned\U000e0001tag"),
    ("replacement character", "\ufffdreplacement"),
    ("fullwidth forms", "ＦＵＬＬＷＩＤＴＨ ｆｕｌｌ１２３"),
    ("titlecase digraphs, ligature, Angstrom and Kelvin signs", "Ǆ ǅ ǆ ﬀ Å K"),
    ("apostrophes and abbreviations", "don't it's rock'n'roll U.S.A. e.g."),
)


def squad_dev_texts():
    """Every context and question of SQuAD v1.1 dev, in file order (2,067 + 10,570 strings)."""
    path = shared_data_dir() / "squad" / "dev-v1.1.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    texts = []
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            texts.append(paragraph["context"])
            texts.extend(qa["question"] for qa in paragraph["qas"])
    return texts


def vocab_path(casing):
    """google's bert-base vocab.txt, `casing` "uncased" or "cased"."""
    return shared_data_dir() / "vocab" / f"bert-base-{casing}-vocab.txt"
