"""In-graph checks of raw-text serving inputs (clear errors instead of silent garbage)."""

import tensorflow as tf


def check_texts(name, text, max_chars=None):
    """Asserts a `[batch]` string tensor has no empty (or whitespace-only) entries.

    The failure is an `InvalidArgumentError` that names the input and the batch positions, which
    TF Serving returns to the client as the error message. Returns `text` (depending on the
    check, so the assertion runs before anything reads it).
    """
    nonempty = tf.strings.length(tf.strings.strip(text)) > 0
    checks = [
        tf.debugging.Assert(
            tf.reduce_all(nonempty),
            [f"Input {name} is empty or only whitespace at batch index(es):", tf.where(~nonempty)[:, 0]],
            name=f"check_{name}_not_empty",
        )
    ]
    if max_chars is not None:
        fits = tf.strings.length(text, unit="UTF8_CHAR") <= max_chars
        checks.append(
            tf.debugging.Assert(
                tf.reduce_all(fits),
                [f"Input {name} is longer than {max_chars} characters at batch index(es):", tf.where(~fits)[:, 0]],
                name=f"check_{name}_length",
            )
        )
    with tf.control_dependencies(checks):
        return tf.identity(text)


def check_same_batch(names, tensors):
    """Asserts every tensor has the same batch size (leading dimension) as the first."""
    sizes = [tf.shape(t)[0] for t in tensors]
    checks = [
        tf.debugging.assert_equal(
            sizes[0], size,
            message=f"Inputs {names[0]} and {name} must have the same batch size.",
        )
        for name, size in zip(names[1:], sizes[1:])
    ]
    with tf.control_dependencies(checks):
        return [tf.identity(t) for t in tensors]
