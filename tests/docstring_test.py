"""Every public docstring `Example:` runs as a doctest and prints what it shows."""

import doctest

import keras
import numpy as np
import pytest
import tensorflow as tf

import keras_bert
from keras_bert.api_export import PUBLIC_SYMBOLS


@pytest.mark.parametrize("path", sorted(PUBLIC_SYMBOLS))
def test_docstring_examples_run(path):
    symbol = PUBLIC_SYMBOLS[path]
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    globs = {"keras_bert": keras_bert, "np": np, "keras": keras, "tf": tf}
    for test in finder.find(symbol, path, globs=globs):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} doctest example(s) of {path} failed (see output)"
