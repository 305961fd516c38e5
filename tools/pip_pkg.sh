#!/usr/bin/env bash
# Builds the keras-exact-bert wheel from the files Bazel declares (//:pip_pkg's data), like TF-MOT's
# pip_pkg: a module missing from a BUILD file is missing from the wheel, which shows at once.
#   bazel run //:pip_pkg -- /abs/output/dir      (default: ./dist under the workspace)
set -euo pipefail

runfiles="${RUNFILES_DIR:-$0.runfiles}"
src="$runfiles/org_keras_bert"
[ -f "$src/setup.py" ] || { echo "pip_pkg: cannot find setup.py under $src" >&2; exit 1; }
dest="${1:-${BUILD_WORKSPACE_DIRECTORY:-$PWD}/dist}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
# -L: runfiles are symlinks into the source tree; copy the files themselves.
(cd "$src" && find -L . -type f ! -name BUILD ! -name pip_pkg ! -path './tools/*' -print0 |
  xargs -0 -I{} cp -L --parents {} "$stage/")
cd "$stage"
python3 -m pip wheel --no-deps --no-build-isolation --wheel-dir "$dest" . >&2
ls "$dest"/*.whl
