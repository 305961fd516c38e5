"""Read, check and write WordPiece `vocab.txt` files (one token per line, id = line number)."""

import json
import os
import pathlib

from keras_bert.api_export import keras_bert_export
from keras_bert.atomic_files import atomic_open

# The tokens every BERT vocabulary carries; google-research/bert's scripts look them up by name.
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

# Magic numbers of the files people pass by mistake, and what each one is.
_BINARY_SIGNATURES = (
    (b"PK\x03\x04", "a zip archive (a `.keras` model or a PyTorch `.bin`/`.pt` file)"),
    (b"\x89HDF", "an HDF5 file (`.h5` Keras weights)"),
)
_WHAT_TO_PASS = (
    "Pass the vocab.txt that came with the checkpoint (google-research BERT checkpoints ship it "
    "next to bert_config.json), or build one with `keras_bert.learn_vocabulary`."
)


@keras_bert_export("keras_bert.load_vocabulary")
def load_vocabulary(vocabulary):
    """Reads a WordPiece vocabulary and checks that it is a usable BERT vocabulary.

    The file format is google-research/bert's `vocab.txt`: UTF-8, one token per line, and the
    token id is the 0-based line number. Checks, each with an error that says what is wrong and
    what to do: the file exists and is text (not a checkpoint, `.keras` file or
    `bert_config.json`), decodes as UTF-8, is not empty, has no blank lines, no token with
    whitespace in it, no duplicate token, and contains all of `SPECIAL_TOKENS`.

    Args:
        vocabulary: str or `os.PathLike`, the path of a `vocab.txt`; or a list/tuple of str
            tokens, which gets the same checks.

    Returns:
        list of str: the tokens, in id order.

    Example:
    >>> tokens = keras_bert.load_vocabulary(
    ...     ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "##s"])
    >>> tokens.index("the")
    5
    """
    if isinstance(vocabulary, (list, tuple)):
        tokens = list(vocabulary)
        bad = [t for t in tokens if not isinstance(t, str)]
        if bad:
            raise TypeError(f"A vocabulary list must hold str tokens; got {bad[0]!r}.")
        _check_tokens(tokens, source="the vocabulary list", first_line=0)
        return tokens
    if not isinstance(vocabulary, (str, os.PathLike)):
        raise TypeError(
            "`vocabulary` must be the path of a vocab.txt or a list of tokens; "
            f"got {type(vocabulary).__name__}."
        )
    return _read_vocab_file(pathlib.Path(vocabulary))


@keras_bert_export("keras_bert.write_vocabulary")
def write_vocabulary(tokens, path):
    """Writes `tokens` as a `vocab.txt` (UTF-8, one token per line, `\\n` line ends).

    The tokens are checked as `load_vocabulary` checks them, so a written file always loads.

    Args:
        tokens: list of str, in id order.
        path: str or `os.PathLike`, the file to write (its folder must exist).

    Returns:
        The `pathlib.Path` written.

    Example:
    >>> import os, tempfile
    >>> path = keras_bert.write_vocabulary(
    ...     ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hi"],
    ...     os.path.join(tempfile.mkdtemp(), "vocab.txt"))
    >>> keras_bert.load_vocabulary(path)[-1]
    'hi'
    """
    tokens = load_vocabulary(list(tokens))
    path = pathlib.Path(path)
    with atomic_open(path, "wb") as f:
        f.write("".join(token + "\n" for token in tokens).encode("utf-8"))
    return path


@keras_bert_export("keras_bert.special_token_ids")
def special_token_ids(tokens):
    """Returns `{"[PAD]": id, "[UNK]": id, "[CLS]": id, "[SEP]": id, "[MASK]": id}`.

    Args:
        tokens: list of str (or a vocab path), as `load_vocabulary` takes.

    Example:
    >>> keras_bert.special_token_ids(
    ...     ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hi"])["[CLS]"]
    2
    """
    tokens = load_vocabulary(tokens)
    index = {token: i for i, token in enumerate(tokens)}
    return {token: index[token] for token in SPECIAL_TOKENS}


def _read_vocab_file(path):
    """Reads and checks one vocab file; every failure names the file and the fix."""
    if not path.exists():
        raise FileNotFoundError(f"Vocabulary file {path} does not exist. {_WHAT_TO_PASS}")
    if path.is_dir():
        found = sorted(p.name for p in path.glob("*vocab*.txt"))
        hint = f" It contains {found}: pass one of those." if found else ""
        raise IsADirectoryError(
            f"Vocabulary path {path} is a folder, not a file.{hint} {_WHAT_TO_PASS}"
        )
    raw = path.read_bytes()
    if not raw.strip():
        raise ValueError(f"Vocabulary file {path} is empty. {_WHAT_TO_PASS}")
    for magic, what in _BINARY_SIGNATURES:
        if raw.startswith(magic):
            raise ValueError(f"{path} is not a vocab.txt: it looks like {what}. {_WHAT_TO_PASS}")
    if b"\x00" in raw[:4096]:
        raise ValueError(
            f"{path} is not a vocab.txt: it is a binary file (NUL bytes near the start; e.g. a "
            f"checkpoint `.data-00000-of-00001` shard or `.safetensors` weights). {_WHAT_TO_PASS}"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ValueError(
            f"{path} is not valid UTF-8: byte offset {error.start} (line {line}) "
            f"({error.reason}). A vocab.txt is UTF-8 text; if this is a vocabulary saved in "
            f"another encoding, re-save it as UTF-8. {_WHAT_TO_PASS}"
        ) from None
    _reject_json(path, text)
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # The newline that ends the last line does not start another token.
    # Windows line ends: tolerated, since the tokens themselves are unambiguous.
    tokens = [line[:-1] if line.endswith("\r") else line for line in lines]
    _check_tokens(tokens, source=str(path), first_line=1)
    return tokens


def _reject_json(path, text):
    """Raises a targeted error when a JSON file (config or tokenizer.json) is passed."""
    if not text.lstrip().startswith(("{", "[")):
        return
    try:
        content = json.loads(text)
    except ValueError:
        return  # A vocab whose first token starts with "{" is unusual but legal.
    if isinstance(content, dict) and "hidden_size" in content:
        what = "a model config (`bert_config.json` / `config.json`), not a vocabulary"
    elif isinstance(content, dict) and "model" in content:
        what = "a Hugging Face `tokenizer.json`; its folder usually also has the `vocab.txt`"
    else:
        what = "a JSON file, not a one-token-per-line vocabulary"
    raise ValueError(f"{path} is not a vocab.txt: it is {what}. {_WHAT_TO_PASS}")


def _check_tokens(tokens, source, first_line):
    """Checks a token list; `first_line` is 1 for files (line numbers) and 0 for lists."""
    where = "line" if first_line else "index"
    if not tokens:
        raise ValueError(f"{source} has no tokens. {_WHAT_TO_PASS}")
    seen = {}
    for i, token in enumerate(tokens):
        position = i + first_line
        if token == "":
            raise ValueError(f"{source}: {where} {position} is empty; every line must be a token.")
        if any(char.isspace() for char in token):
            # google-research strips each line; a token with inner whitespace (a "token count"
            # or SentencePiece "piece<TAB>score" line) can never be produced by WordPiece.
            raise ValueError(
                f"{source}: {where} {position} ({token!r}) contains whitespace. A vocab.txt "
                f"has exactly one token per line (no counts or scores). {_WHAT_TO_PASS}"
            )
        if token in seen:
            raise ValueError(
                f"{source}: duplicate token {token!r} at {where}s {seen[token]} and {position}; "
                "ids would be ambiguous. Remove the duplicate (or pass the original vocab.txt)."
            )
        seen[token] = position
    missing = [token for token in SPECIAL_TOKENS if token not in seen]
    if missing:
        raise ValueError(
            f"{source} is missing the BERT special token(s) {', '.join(missing)} "
            f"({len(tokens)} tokens read, starting {tokens[:3]}). {_WHAT_TO_PASS}"
        )
