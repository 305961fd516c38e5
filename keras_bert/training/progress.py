"""Progress that reads well where it goes: Keras's bar on a terminal, plain lines in a log.

Keras's `Progbar` draws with ANSI escape codes (bold, colours), backspaces and carriage returns
whatever stdout is, so a log (`> run.log`, `| tee`, a CI job) fills with `\\x1b[1m`, `\\b` and
`\\r`. Here a terminal gets Keras's bar and anything else a plain line now and then (every
`interval` seconds, and at the end), with no escape codes.
"""

import sys
import time


def on_terminal():
    """Whether stdout is a terminal (not a file or a pipe)."""
    return hasattr(sys.stdout, "isatty") and sys.stdout.isatty()


def keras_verbose():
    """Keras's `verbose` for `fit` / `predict`: the bar (1) on a terminal, else one plain line
    per epoch or prediction (2)."""
    return 1 if on_terminal() else 2


def progress_bar(target, unit_name="step", stateful_metrics=None, verbose=True, interval=30.0):
    """Something with `keras.utils.Progbar`'s `update(current, values)`: Keras's bar on a
    terminal, a `LineProgress` elsewhere, nothing shown when `verbose` is false."""
    import keras

    if verbose and not on_terminal():
        return LineProgress(target, unit_name, interval)
    return keras.utils.Progbar(target, stateful_metrics=stateful_metrics,
                               verbose=1 if verbose else 0, unit_name=unit_name)


class LineProgress:
    """`Progbar.update`'s interface for logs: prints `current/target unit (percent), elapsed,
    name value, ...` at most every `interval` seconds, and once when `current` reaches
    `target`. `values` are shown as last given."""

    def __init__(self, target, unit_name="step", interval=30.0):
        self.target = target
        self.unit_name = unit_name
        self.interval = interval
        self._start = time.time()
        self._last = self._start
        self._finished = False

    def update(self, current, values=None, finalize=None):
        now = time.time()
        done = finalize or (self.target is not None and current >= self.target)
        if self._finished or (not done and now - self._last < self.interval):
            return
        self._last = now
        self._finished = bool(done)
        line = f"{current}/{self.target} {self.unit_name}"
        if self.target:
            line += f" ({100 * current / self.target:.0f}%)"
        line += f", {now - self._start:.0f} s"
        for name, value in values or ():
            line += f", {name} {value:.4g}" if isinstance(value, float) else f", {name} {value}"
        print(line, flush=True)


def prediction_callbacks(num_batches, what="batch", interval=30.0):
    """Keras callbacks for `model.predict` in a log: a plain line every `interval` seconds and
    at the end (use with `verbose=0`). On a terminal, none: Keras's own bar (`verbose=1`)."""
    import keras

    if on_terminal():
        return []

    class _Lines(keras.callbacks.Callback):
        def on_predict_begin(self, logs=None):
            self.progress = LineProgress(num_batches, what, interval)

        def on_predict_batch_end(self, batch, logs=None):
            self.progress.update(batch + 1)

    return [_Lines()]
