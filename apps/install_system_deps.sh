#!/usr/bin/env bash
# Debian packages the app tests need: Chromium (driven by npm playwright-core; never
# `npx playwright install`, which downloads a browser) and JUnit 4 (the Android logic module's
# tests). Installs the missing ones with apt-get when run as root; otherwise says what to run.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ -f /usr/share/java/junit4.jar ] || missing+=(junit4)
command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
command -v node >/dev/null 2>&1 || missing+=(nodejs npm)
# wat2wasm: the browser's SIMD ceiling (experiments/simd_ceiling.py and its test).
command -v wat2wasm >/dev/null 2>&1 || missing+=(wabt)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "The app tests need Debian packages that are not installed: ${missing[*]}." >&2
  echo "Run: sudo apt-get install -y ${missing[*]}   then run make again." >&2
  exit 1
fi
echo "Installing ${missing[*]} with apt-get (app tests: browser and JUnit)."
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" \
  || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; }
