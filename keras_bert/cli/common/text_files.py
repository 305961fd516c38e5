"""The text-input side the corpus CLIs share: `--input_file` lists and .txt/.txt.gz reading."""

from absl import app

from keras_bert.cli.common import usage


def input_files(input_file):
    """google's `--input_file` (comma-separated paths or globs) -> sorted paths, or a usage error."""
    from keras_bert.data.pretraining.dataset import expand_input_files

    try:
        return expand_input_files(input_file)
    except FileNotFoundError as e:
        raise usage.flag_error(e) from None


def read_text(path):
    """The whole UTF-8 text of `path` (gzip-compressed when it ends in .gz), or a usage error."""
    from keras_bert.data.data_files import open_data_file

    try:
        with open_data_file(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as e:
        raise app.UsageError(f"{path} is not UTF-8 text ({e}).") from None
