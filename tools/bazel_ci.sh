#!/usr/bin/env bash
# Offline `bazel test` of keras_bert's fast tier: size small, the tests with no pytest size marker.
#
#   tools/bazel_ci.sh                                  # bazel test //... --test_size_filters=small
#   tools/bazel_ci.sh --test_size_filters=small,medium # extra arguments go to `bazel test` last
#   tools/bazel_ci.sh //tests:build_consistency_test   # a target pattern replaces //...
#   tools/bazel_ci.sh --build_all //tests/...:all      # first build every target, then test those
#
# It uses Debian's bazel-bootstrap (Bazel 4.2.3) with nothing downloaded: it installs the three apt
# packages if missing, resolves where Debian put `platforms` and `rules_java` (dpkg -L), overrides
# those and the two stubs in third_party/bazel/, and runs py_test with <repo>/.venv's python first
# on PATH (third-party packages come from that environment, as setup.py installs them).
#
# Environment:
#   KERAS_BERT_VENV         the virtualenv to test with (default: <repo>/.venv)
#   KERAS_BERT_SHARED_DATA  shared data directory (default: <repo>/../shared/data); passed to the
#                           tests as --test_env=KERAS_BERT_SHARED_DATA=<absolute path>
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

die() {
  echo "bazel_ci.sh: $*" >&2
  exit 1
}

# 1. Debian's Bazel and the two repositories it needs, from apt (installed only if missing).
packages=(bazel-bootstrap bazel-platforms bazel-rules-java)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]})); then
  command -v apt-get >/dev/null ||
    die "apt-get not found; install the Debian packages ${missing[*]} by hand, or run pytest instead."
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null && sudo -n true 2>/dev/null ||
      die "need root to install ${missing[*]}: run  sudo apt-get install -y ${missing[*]}"
    sudo=(sudo -n)
  fi
  echo "bazel_ci.sh: installing ${missing[*]} with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
    # A fresh machine may have no package lists yet.
    "${sudo[@]}" apt-get update || true
    "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" ||
      die "apt-get could not install ${missing[*]}. They are Debian 12 (bookworm) packages;" \
        "install them by hand (apt-get install -y ${missing[*]}) or run pytest instead."
  fi
fi

# 2. Where Debian put them.
package_file() { # package, regex for one of its files
  local listing
  listing="$(dpkg -L "$1")" || return 0
  grep -E "$2" <<<"$listing" | head -n1 || true
}
platforms_workspace="$(package_file bazel-platforms '/platforms/WORKSPACE$')"
rules_java_workspace="$(package_file bazel-rules-java '/java/WORKSPACE$')"
[ -f "$platforms_workspace" ] || die "no platforms repository in 'dpkg -L bazel-platforms'."
[ -f "$rules_java_workspace" ] || die "no rules_java repository in 'dpkg -L bazel-rules-java'."
platforms_dir="$(dirname "$platforms_workspace")"
rules_java_dir="$(dirname "$rules_java_workspace")"
bazel="$(package_file bazel-bootstrap '^/usr/bin/bazel-[0-9]+$')"
[ -x "$bazel" ] || bazel="$(command -v bazel)" ||
  die "bazel-bootstrap is installed but no bazel binary was found."

# 3. The Python environment py_test runs in: the venv's python3 first on PATH.
venv="${KERAS_BERT_VENV:-$repo/.venv}"
[ -x "$venv/bin/python3" ] ||
  die "no virtualenv at $venv: set KERAS_BERT_VENV, or create it as the README says."
"$venv/bin/python3" -c "import pytest" 2>/dev/null ||
  die "$venv has no pytest: install the test extras into it (pip install -e '.[test]')."
export PATH="$venv/bin:$PATH"

# 4. Shared data: tests look for <repo>/../shared/data, a path outside the test's runfiles tree.
shared="${KERAS_BERT_SHARED_DATA:-$repo/../shared/data}"
test_env=()
if [ -d "$shared" ]; then
  test_env=(--test_env="KERAS_BERT_SHARED_DATA=$(cd "$shared" && pwd)")
else
  echo "bazel_ci.sh: no shared data at $shared; tests that need it will skip or fail." >&2
fi

# 5. Target patterns come first on Bazel's command line; anything else is a flag, appended last.
#    --build_all (ours, not Bazel's): `bazel build //...` first, so every target of the repository
#    is analysed and built (labels, deps, macros) even when only some are tested.
targets=()
flags=()
build_all=0
for arg in "$@"; do
  case "$arg" in
    --build_all) build_all=1 ;;
    //* | :* | @*) targets+=("$arg") ;;
    *) flags+=("$arg") ;;
  esac
done
((${#targets[@]})) || targets=(//...)

repositories=(
  --override_repository="platforms=$platforms_dir"
  --override_repository="rules_java=$rules_java_dir"
  --override_repository="rules_cc=$repo/third_party/bazel/rules_cc"
  --override_repository="remote_coverage_tools=$repo/third_party/bazel/remote_coverage_tools"
)
set -x
if ((build_all)); then
  "$bazel" build "${repositories[@]}" --keep_going -- //...
fi
"$bazel" test \
  "${repositories[@]}" \
  --test_size_filters=small \
  --test_output=errors \
  --keep_going \
  "${test_env[@]}" \
  "${flags[@]}" \
  -- "${targets[@]}"
