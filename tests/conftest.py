"""Pytest markers and switches: `large` and `extra_large` tiers; the core (backend-portable)
tests on JAX / PyTorch, where only they may be selected."""

import importlib.util
import os
import pathlib

import pytest
from hypothesis import settings

# Property-based tests (tests/reliability): a fixed, repeatable budget in `make test`; the
# `reliability` profile (make test-reliability, run by CI) tries random inputs, 500 per property
# (KERAS_BERT_FUZZ_EXAMPLES sets another count).
# No example database: runs leave the checkout untouched, and a failure prints its reproducer.
settings.register_profile("fixed_budget", max_examples=60, deadline=None, derandomize=True,
                          database=None, print_blob=True)
settings.register_profile("reliability",
                          max_examples=int(os.environ.get("KERAS_BERT_FUZZ_EXAMPLES", "500")),
                          deadline=None, database=None, print_blob=True)
settings.load_profile("fixed_budget")

# The core environment (make test-core): Keras with JAX or PyTorch and no TensorFlow. There only
# the test modules holding `backend_portable` tests are collected; the rest run in the
# TensorFlow environment.
HAS_TENSORFLOW = importlib.util.find_spec("tensorflow") is not None


def pytest_addoption(parser):
    parser.addoption("--run_large", action="store_true", help="Also run tests marked large.")
    parser.addoption(
        "--run_extra_large", action="store_true", help="Also run tests marked extra_large."
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "large: slow (export, multi-step training); CI runs them.")
    config.addinivalue_line("markers", "extra_large: needs big local artifacts; off by default.")
    config.addinivalue_line(
        "markers",
        "backend_portable: core tests that must also pass on JAX and PyTorch, without TensorFlow.",
    )
    config.addinivalue_line(
        "markers",
        "reliability: fuzzing and fault injection; make test-reliability runs them with the "
        "larger Hypothesis budget.",
    )
    config.addinivalue_line(
        "markers",
        "fault_injection: kills and full disks during real runs; only make test-reliability "
        "runs them (make test deselects them).",
    )


def pytest_collection_modifyitems(config, items):
    run_large = config.getoption("--run_large") or config.getoption("--run_extra_large")
    run_extra_large = config.getoption("--run_extra_large")
    for item in items:
        if "large" in item.keywords and not run_large:
            item.add_marker(pytest.mark.skip(reason="large: pass --run_large"))
        if "extra_large" in item.keywords and not run_extra_large:
            item.add_marker(pytest.mark.skip(reason="extra_large: pass --run_extra_large"))


def pytest_collection_finish(session):
    """On a backend other than TensorFlow only the portable tests may be selected (after -m has
    deselected): a TensorFlow-only test would otherwise be skipped silently and read as covered."""
    backend = os.environ.get("KERAS_BACKEND", "tensorflow")
    if backend == "tensorflow":
        return
    hidden = [item.nodeid for item in session.items if "backend_portable" not in item.keywords]
    if hidden:
        raise pytest.UsageError(
            f"KERAS_BACKEND={backend} runs only the backend-portable tests, but {len(hidden)} "
            f"TensorFlow-only tests were selected (e.g. {hidden[0]}): add -m backend_portable "
            "(make test-core does), or unset KERAS_BACKEND."
        )


def pytest_ignore_collect(collection_path, config):
    """Without TensorFlow, test modules with no `backend_portable` test are not imported."""
    if HAS_TENSORFLOW or collection_path.suffix != ".py":
        return None
    if not collection_path.name.endswith("_test.py"):
        return None
    return "backend_portable" not in pathlib.Path(collection_path).read_text()
