"""A `line number -> line` lookup table over a text file that becomes a SavedModel asset."""

import os

import tensorflow as tf


def line_table(path, default=""):
    """`tf.lookup.StaticHashTable` mapping int64 line numbers (0-based) of `path` to its lines.

    Exported graphs read `vocab.txt` (id -> WordPiece token) and `labels.txt` (class id ->
    label) through such tables, so the files travel as SavedModel assets (`assets/`) and the
    signatures read what is there. Track the table with `ExportArchive.track` before export.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} does not exist (expected a text file, one entry per line).")
    initializer = tf.lookup.TextFileInitializer(
        path,
        key_dtype=tf.int64,
        key_index=tf.lookup.TextFileIndex.LINE_NUMBER,
        value_dtype=tf.string,
        value_index=tf.lookup.TextFileIndex.WHOLE_LINE,
    )
    return tf.lookup.StaticHashTable(initializer, default_value=default)
