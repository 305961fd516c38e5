#!/usr/bin/env bash
# Compiles qa-core (main + tests) with javac and runs its JUnit 4 tests with Debian's junit4.
#   apps/android/qa-core/run_tests.sh            # all test classes
#   apps/android/qa-core/run_tests.sh QaGoldenTest  # some of them (simple class names)
# The golden fixtures are found in ../../fixtures (override with FIXTURES_DIR=...); the tests
# also read the repository's apps/models/vocab.txt and apps/web/data/articles.json beside them.
# Output goes to build/ (gitignored). Exits nonzero when compilation or a test fails.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="$HERE/build/javac"
FIXTURES_DIR="${FIXTURES_DIR:-$(cd "$HERE/../.." && pwd)/fixtures}"

find_jar() {
  local jar
  for jar in "$@"; do
    if [ -f "$jar" ]; then echo "$jar"; return 0; fi
  done
  return 1
}

JUNIT_JAR="$(find_jar "${JUNIT_JAR:-/usr/share/java/junit4.jar}" /usr/share/java/junit4.jar /usr/share/java/junit4-4.13.2.jar)" || {
  echo "run_tests.sh: JUnit 4 is missing (/usr/share/java/junit4.jar)." >&2
  echo "Install it with:  apt-get install junit4   (Debian/Ubuntu; pulls in hamcrest)," >&2
  echo "or point JUNIT_JAR=... and HAMCREST_JAR=... at junit-4.13.2.jar and hamcrest-core-1.3.jar." >&2
  exit 2
}
HAMCREST_JAR="$(find_jar "${HAMCREST_JAR:-/usr/share/java/hamcrest-core.jar}" /usr/share/java/hamcrest-core.jar /usr/share/java/hamcrest.jar /usr/share/java/hamcrest-all.jar)" || {
  echo "run_tests.sh: Hamcrest (needed by JUnit 4) is missing from /usr/share/java." >&2
  echo "Install it with:  apt-get install junit4   (which depends on libhamcrest-java)." >&2
  exit 2
}
command -v javac >/dev/null || { echo "run_tests.sh: javac not found; install a JDK 17 (apt-get install openjdk-17-jdk-headless)." >&2; exit 2; }
if [ ! -d "$FIXTURES_DIR" ]; then
  echo "run_tests.sh: fixtures folder $FIXTURES_DIR not found; make it with: .venv/bin/python -m apps.make_fixtures" >&2
  exit 2
fi

rm -rf "$BUILD"
mkdir -p "$BUILD/main" "$BUILD/test"
CP="$JUNIT_JAR:$HAMCREST_JAR"

echo "== javac qa-core (main)"
find "$HERE/src/main/java" -name '*.java' > "$BUILD/main-sources.txt"
javac --release 17 -Xlint:all -Werror -encoding UTF-8 -d "$BUILD/main" @"$BUILD/main-sources.txt"

echo "== javac qa-core (test)"
find "$HERE/src/test/java" -name '*.java' > "$BUILD/test-sources.txt"
javac --release 17 -Xlint:all,-processing -encoding UTF-8 -cp "$BUILD/main:$CP" -d "$BUILD/test" @"$BUILD/test-sources.txt"

if [ "$#" -gt 0 ]; then
  CLASSES=()
  for name in "$@"; do CLASSES+=("org.kerasbert.qa.$name"); done
else
  mapfile -t CLASSES < <(cd "$HERE/src/test/java" && find . -name '*Test.java' | sort | sed -e 's|^\./||' -e 's|\.java$||' -e 's|/|.|g')
fi

echo "== JUnit: ${CLASSES[*]}"
echo "   fixtures: $FIXTURES_DIR"
java -Dfixtures.dir="$FIXTURES_DIR" -cp "$BUILD/main:$BUILD/test:$CP" org.junit.runner.JUnitCore "${CLASSES[@]}"
