"""Files that appear whole or not at all: written under a temporary name, renamed when done.

A run killed mid-write (SIGKILL, a full disk, a crash) must not leave a truncated file where the
previous good one was, or a partial one that a later step takes for finished. Every file the
package produces goes through `atomic_open` (one file) or `atomic_paths` (a set of TFRecord
shards, renamed together once all are written; this one needs TensorFlow).
"""

import contextlib
import os


def _temporary(path):
    return f"{path}.tmp-{os.getpid()}"


@contextlib.contextmanager
def atomic_open(path, mode="w", **open_kwargs):
    """Like `open(path, mode)` for writing, but the file only takes `path`'s name when the block
    ends without an error: it is flushed to disk and renamed over the old one (a reader sees the
    old file or the whole new one). On an error the temporary file is removed and `path` is left
    as it was. The folder is created if needed.

    Example:
    >>> import json, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "results.json")
    >>> with atomic_open(path) as f:
    ...     json.dump({"f1": 80.4}, f)
    >>> json.load(open(path))
    {'f1': 80.4}
    """
    if mode not in ("w", "wb", "wt"):
        raise ValueError(f"atomic_open writes a whole new file: mode {mode!r} must be 'w' or "
                         "'wb' (appending or reading cannot be atomic).")
    path = os.fspath(path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    temporary = _temporary(path)
    try:
        with open(temporary, mode, **open_kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(temporary)
        raise


@contextlib.contextmanager
def atomic_paths(paths):
    """Temporary names for `paths` (local or any `tf.io.gfile` file system), renamed to `paths`
    together when the block ends without an error, removed when it fails. For writers that take
    a path, such as `tf.io.TFRecordWriter`: close them inside the block.

    Example:
    >>> import os, tempfile
    >>> import tensorflow as tf
    >>> final = [os.path.join(tempfile.mkdtemp(), "a.tfrecord")]
    >>> with atomic_paths(final) as temporary:
    ...     with tf.io.TFRecordWriter(temporary[0]) as writer:
    ...         writer.write(b"record")
    >>> os.path.exists(final[0])
    True
    """
    import tensorflow as tf  # here: the package's core runs without TensorFlow

    paths = [os.fspath(p) for p in paths]
    temporary = [_temporary(p) for p in paths]
    try:
        yield temporary
        for source, target in zip(temporary, paths):
            tf.io.gfile.rename(source, target, overwrite=True)
    except BaseException:
        for source in temporary:
            with contextlib.suppress(tf.errors.NotFoundError, OSError):
                tf.io.gfile.remove(source)
        raise
