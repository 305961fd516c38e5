"""Opening task data files: plain or gzip-compressed (`.gz`), and finding them in a `--data_dir`."""

import gzip
import os

from keras_bert.api_export import keras_bert_export


@keras_bert_export("keras_bert.data.open_data_file")
def open_data_file(path, mode="rt", **kwargs):
    """`open(path, mode)`, through gzip when `path` ends in `.gz`."""
    path = os.fspath(path)
    return (gzip.open if path.endswith(".gz") else open)(path, mode, **kwargs)


def read_data_text(path, error_type, encoding="utf-8", hint="save it as UTF-8."):
    """The whole text of a data file (`.gz` too). Bytes that are not `encoding` raise
    `error_type` in one line naming the file, line and byte offset, and `hint`."""
    with open_data_file(path, "rb") as f:
        raw = f.read()
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise error_type(
            f"{os.fspath(path)}:{line}: not UTF-8 text (byte {e.start}); {hint}"
        ) from None


@keras_bert_export("keras_bert.data.find_data_file")
def find_data_file(data_dir, name):
    """`data_dir/name`, or `data_dir/name.gz` when only that exists."""
    path = os.path.join(data_dir, name)
    for candidate in (path, path + ".gz"):
        if os.path.exists(candidate):
            return candidate
    raise FileNotFoundError(
        f"{path} (or {path}.gz) does not exist: `data_dir` must hold the task's {name}."
    )
