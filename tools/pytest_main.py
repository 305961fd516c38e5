"""Bazel `py_test` entry point: runs pytest on one test file and exits with pytest's status.

`tools/pytest.bzl`'s `py_test` macro makes this the `main` of every test and passes the test
file as the first argument, then `--run_large` / `--run_extra_large` for `medium` / `enormous`
targets (Bazel's `--test_size_filters` is the switch there, not pytest's options), then any
`bazel test --test_arg=...`. When Bazel asks for a JUnit report (`XML_OUTPUT_FILE`), pytest
writes it, so `bazel-testlogs/.../test.xml` names each test case; `tmp_path` lives under the test's
own `TEST_TMPDIR`, not a /tmp/pytest-of-user shared with tests running beside it.
"""

import os
import sys

import pytest


def main(argv):
    if len(argv) < 2 or not argv[1].endswith(".py"):
        sys.stderr.write("usage: pytest_main.py path/to/some_test.py [pytest args...]\n")
        return 2
    args = [argv[1], "-q", "-p", "no:cacheprovider"]
    xml = os.environ.get("XML_OUTPUT_FILE")
    if xml:
        args.append("--junitxml=" + xml)
    tmpdir = os.environ.get("TEST_TMPDIR")
    if tmpdir:
        args.append("--basetemp=" + os.path.join(tmpdir, "pytest"))
    args.extend(argv[2:])
    return int(pytest.main(args))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
