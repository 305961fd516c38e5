"""`py_test` for pytest-style test files (load it instead of the native rule).

    load("//tools:pytest.bzl", "py_test")

    py_test(
        name = "bert_config_test",
        size = "small",  # pytest markers: none -> small, large -> medium, extra_large -> enormous
        srcs = ["bert_config_test.py"],
        deps = ["//keras_bert/models:bert_config"],
    )

The native `py_test` would run the file as a script, and a pytest file run as a script defines
its tests and exits 0 without running any of them. This macro makes `//tools:pytest_main.py`
the entry point, passes the test file to it, and adds `//tests:conftest` (markers, pytest.ini)
and the test's own package target (its directory's __init__.py, named after the directory), so
pytest names the module as it does outside Bazel (`tests.keras_bert.layers.x_test`).
`tests/build_consistency_test.py` checks that every `tests/**/BUILD` loads this macro.
"""

# Bazel size -> the conftest.py switch that un-skips that tier.
_SIZE_ARGS = {
    "small": [],
    "medium": ["--run_large"],
    "large": ["--run_large"],
    "enormous": ["--run_extra_large"],
}

def py_test(name, srcs, size, deps = [], args = [], data = [], **kwargs):
    """A pytest-run `py_test`: `srcs` is the one `*_test.py` file (plus optional helpers).

    `size` is required (no Bazel default): it must match the file's pytest markers.
    """
    tests = [s for s in srcs if s.endswith("_test.py")]
    if len(tests) != 1:
        fail("py_test %s: srcs must hold exactly one *_test.py file, got %s" % (name, srcs))
    if size not in _SIZE_ARGS:
        fail("py_test %s: unknown size %s" % (name, size))
    native.py_test(
        name = name,
        size = size,
        srcs = srcs + ["//tools:pytest_main.py"],
        main = "//tools:pytest_main.py",
        args = ["$(location %s)" % tests[0]] + _SIZE_ARGS[size] + args,
        data = data,
        deps = deps + [
            ":" + native.package_name().split("/")[-1],
            "//tests:conftest",
        ],
        legacy_create_init = False,
        python_version = "PY3",
        srcs_version = "PY3",
        **kwargs
    )
