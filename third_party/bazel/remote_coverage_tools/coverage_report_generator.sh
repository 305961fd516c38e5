#!/bin/sh
# Offline stub: the real generator is downloaded by Bazel, which this project never does.
echo "remote_coverage_tools is an offline stub: 'bazel coverage' is not supported here; use pytest --cov." >&2
exit 1
