"""Every public docstring `Example:` runs as a doctest and prints what it shows."""

import doctest

import keras
import numpy as np
import pytest
import tensorflow as tf

import keras_bert
from keras_bert.api_export import PUBLIC_SYMBOLS

# A public-name lookup runs a registration that an earlier test module's imports left pending
# (keras_bert.lazy_package.register_after_keras), so the list below sees every public symbol
# whatever was collected before this file.
keras_bert.BertEncoder  # noqa: B018

FINDER = doctest.DocTestFinder(recurse=False)
WITH_EXAMPLES = sorted(
    path for path, symbol in PUBLIC_SYMBOLS.items()
    if any(test.examples for test in FINDER.find(symbol, path, globs={}))
)


def test_examples_are_not_lost():
    # 36 of the 75 public symbols show a run example (2026-11-25); the count may only grow.
    assert len(WITH_EXAMPLES) >= 36, WITH_EXAMPLES


@pytest.mark.parametrize("path", WITH_EXAMPLES)
def test_docstring_examples_run(path):
    symbol = PUBLIC_SYMBOLS[path]
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    globs = {"keras_bert": keras_bert, "np": np, "keras": keras, "tf": tf}
    for test in FINDER.find(symbol, path, globs=globs):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0, path
    assert result.failed == 0, f"{result.failed} doctest example(s) of {path} failed (see output)"
