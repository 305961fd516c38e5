"""`ReferenceTokenizer`: pure-Python BERT tokenization, google-research/bert's exact semantics."""

import unicodedata

from keras_bert.api_export import keras_bert_export
from keras_bert.tokenization.vocab import load_vocabulary

# google-research/bert's default; Hugging Face's WordPiece uses 100 instead.
MAX_INPUT_CHARS_PER_WORD = 200

# The "CJK Unified Ideographs" blocks google-research/bert splits into single characters. Hangul,
# Hiragana and Katakana are not here on purpose: those scripts separate words with spaces.
CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


@keras_bert_export("keras_bert.ReferenceTokenizer")
class ReferenceTokenizer:
    """BERT's `FullTokenizer` in plain Python: the oracle every other tokenizer is tested against.

    The steps and character classes are google-research/bert `tokenization.py`'s, one function
    each, in the same order: clean the text (drop NUL, U+FFFD and Cc/Cf control/format
    characters; every whitespace character becomes a space), put spaces around CJK ideographs,
    split on whitespace, lower-case and strip accents (NFD, then drop category Mn) when
    `do_lower_case`, split off punctuation, then WordPiece (greedy longest match first, `##`
    continuations; a word longer than `max_input_chars_per_word` characters or with any
    unmatchable piece becomes one `[UNK]`).

    One deliberate difference: google decodes `bytes` with `errors="ignore"`, which silently
    drops invalid UTF-8. Here invalid UTF-8 raises a `ValueError` naming the byte offset.

    Single tokens are looked up with `token_to_id` / `id_to_token`, the methods `BertTokenizer`
    (and keras-hub's tokenizers) have; google's `convert_tokens_to_ids` maps lists, unknown
    tokens to `[UNK]`.

    Args:
        vocabulary: str path of a `vocab.txt`, or a list of str tokens (id = position).
        do_lower_case: bool. Lower-case and strip accents, as uncased checkpoints need.
            Defaults to `True`.
        max_input_chars_per_word: int. Longer words become `[UNK]`. Defaults to 200 (google).

    Example:
    >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "un", "##want", "##ed", ","]
    >>> tokenizer = keras_bert.ReferenceTokenizer(vocab)
    >>> tokenizer.tokenize("UNwant\\u00E9d, running")
    ['un', '##want', '##ed', ',', '[UNK]']
    >>> tokenizer.encode("unwanted")
    [5, 6, 7]
    >>> tokenizer.token_to_id("[MASK]"), tokenizer.id_to_token(5)
    (4, 'un')

    Reference:
        google-research/bert, `tokenization.py` (`BasicTokenizer`, `WordpieceTokenizer`).
    """

    def __init__(
        self, vocabulary, do_lower_case=True, max_input_chars_per_word=MAX_INPUT_CHARS_PER_WORD
    ):
        self.vocabulary = load_vocabulary(vocabulary)
        self.do_lower_case = do_lower_case
        self.max_input_chars_per_word = max_input_chars_per_word
        self._token_to_id = {token: i for i, token in enumerate(self.vocabulary)}
        self.unk_token = "[UNK]"

    def tokenize(self, text):
        """Returns the WordPiece tokens (list of str) of `text` (str, or UTF-8 bytes)."""
        tokens = []
        for word in self.basic_tokenize(text):
            tokens.extend(self.wordpiece_tokenize(word))
        return tokens

    def encode(self, text):
        """Returns the token ids (list of int) of `text`."""
        return self.convert_tokens_to_ids(self.tokenize(text))

    def convert_tokens_to_ids(self, tokens):
        """Maps tokens to ids; a token not in the vocabulary maps to `[UNK]`'s id."""
        unk_id = self._token_to_id[self.unk_token]
        return [self._token_to_id.get(token, unk_id) for token in tokens]

    def convert_ids_to_tokens(self, ids):
        """Maps ids to tokens; an id out of range raises `IndexError`."""
        for i in ids:
            if not 0 <= i < len(self.vocabulary):
                raise IndexError(
                    f"Token id {i} is outside the vocabulary [0, {len(self.vocabulary)})."
                )
        return [self.vocabulary[i] for i in ids]

    def token_to_id(self, token):
        """The id of `token`; raises `ValueError` for a token not in the vocabulary."""
        if token not in self._token_to_id:
            raise ValueError(f"Token {token!r} is not in the vocabulary.")
        return self._token_to_id[token]

    def id_to_token(self, id):
        """The token string of integer `id`."""
        if not 0 <= id < len(self.vocabulary):
            raise ValueError(
                f"Token id {id} is outside the vocabulary [0, {len(self.vocabulary)})."
            )
        return self.vocabulary[id]

    # === BasicTokenizer ===

    def basic_tokenize(self, text):
        """Cleans and splits `text` into words (google's `BasicTokenizer.tokenize`)."""
        text = _to_str(text)
        text = _clean_text(text)
        text = _space_out_cjk(text)
        words = []
        for word in text.split():
            if self.do_lower_case:
                # Lower-casing whole words (not characters) matters: Python picks Greek final
                # sigma from the neighbouring letters.
                word = _strip_accents(word.lower())
            words.extend(_split_on_punctuation(word))
        # As google does: re-split, which drops the empty words that stripping accents leaves
        # behind (a word of only combining marks).
        return " ".join(words).split()

    # === WordpieceTokenizer ===

    def wordpiece_tokenize(self, word):
        """Splits one word into pieces, greedy longest match first (google's algorithm)."""
        if len(word) > self.max_input_chars_per_word:
            return [self.unk_token]
        pieces = []
        start = 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self._token_to_id:
                    break
                end -= 1
            if end == start:
                return [self.unk_token]  # One unmatchable piece makes the whole word unknown.
            pieces.append(piece)
            start = end
        return pieces


def _to_str(text):
    """Decodes bytes as strict UTF-8; the error says where and what to do."""
    if isinstance(text, str):
        return text
    if isinstance(text, (bytes, bytearray)):
        try:
            return bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(
                f"Text is not valid UTF-8: byte offset {error.start} ({error.reason}; bytes "
                f"{bytes(text)[error.start:error.start + 4]!r}). Decode the source with its real "
                "encoding (e.g. `raw.decode('latin-1')`) and pass a str."
            ) from None
    raise TypeError(f"Text must be str or UTF-8 bytes, got {type(text).__name__}.")


def is_whitespace(char):
    """Space, tab, newline, carriage return and category Zs count as whitespace."""
    return char in " \t\n\r" or unicodedata.category(char) == "Zs"


def is_control(char):
    """Categories Cc and Cf, except tab/newline/return (which are whitespace)."""
    # Only Cc/Cf: google keeps Co (private use), Cs and Cn (unassigned) characters.
    if char in "\t\n\r":
        return False
    return unicodedata.category(char) in ("Cc", "Cf")


def is_punctuation(char):
    """Every non-alphanumeric ASCII character, plus Unicode categories P*."""
    # "$", "^", "`", "+", "<" ... are Unicode symbols (S*), not punctuation, but google splits
    # them off like punctuation so that all of ASCII behaves alike.
    cp = ord(char)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def is_cjk(char):
    """A code point in one of `CJK_RANGES`."""
    cp = ord(char)
    return any(low <= cp <= high for low, high in CJK_RANGES)


def _clean_text(text):
    return "".join(
        " " if is_whitespace(char) else char
        for char in text
        if char not in "\x00\ufffd" and not is_control(char)
    )


def _space_out_cjk(text):
    return "".join(f" {char} " if is_cjk(char) else char for char in text)


def _strip_accents(word):
    decomposed = unicodedata.normalize("NFD", word)
    return "".join(char for char in decomposed if unicodedata.category(char) != "Mn")


def _split_on_punctuation(word):
    pieces = []
    start_new = True
    for char in word:
        if is_punctuation(char):
            pieces.append(char)
            start_new = True
        else:
            if start_new:
                pieces.append("")
            pieces[-1] += char
            start_new = False
    return pieces
