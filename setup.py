"""keras_bert: exact BERT for Keras 3 (TensorFlow, JAX, PyTorch). The single dependency list."""

import pathlib

import setuptools

HERE = pathlib.Path(__file__).parent
VERSION = {}
exec((HERE / "keras_bert" / "version.py").read_text(), VERSION)

setuptools.setup(
    # PyPI's `keras-bert` is another project (BERT in Keras 2, 2018-2022); this one is published
    # as keras-exact-bert and imported as keras_bert.
    name="keras-exact-bert",
    version=VERSION["__version__"],
    description="Exact BERT for TensorFlow / Keras 3: pretrain, fine-tune, serve and ship to phones.",
    long_description=(HERE / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.10",
    # The wheel's one top-level name is keras_bert: the repository's export/ folder installs as
    # keras_bert.export (keras_bert/export_package.py maps the same name in a source checkout).
    packages=setuptools.find_packages(include=["keras_bert", "keras_bert.*"])
    + ["keras_bert.export"]
    + [f"keras_bert.export.{name}" for name in setuptools.find_packages("export")],
    package_dir={"keras_bert.export": "export"},
    include_package_data=True,
    package_data={"keras_bert": ["assets/*"]},
    exclude_package_data={"": ["BUILD"]},
    # The core: models, layers, weight import, the reference tokenizer, numpy packing, SQuAD
    # scoring and `fit` on any Keras backend (JAX, PyTorch or TensorFlow). `make demo` and
    # `make test` install the `tf` extra as well.
    install_requires=[
        "keras>=3.10,<4",
        "absl-py>=1.4",
        "numpy",
        "safetensors",
        "tqdm",
        # Training-curve plots in docs/ and reports.
        "matplotlib",
    ],
    extras_require={
        # TensorFlow and what builds on it: the in-graph tokenizer (tensorflow-text), tf.data and
        # TFRecord pipelines, tf.distribute, TF1 checkpoints, SavedModel/TFLite export, QAT, and
        # keras-hub (which requires tensorflow-text).
        "tf": [
            "tensorflow>=2.21,<2.22",
            "tensorflow-text>=2.21,<2.22",
            "keras-hub>=0.32",
            # TensorBoard summaries of training runs (tf.summary needs it installed).
            "tensorboard",
        ],
        # The TFLite interpreter, TF Serving's request protos (warmup records), and the
        # flatbuffers builder for TFLite metadata.
        "export": ["ai-edge-litert>=2.3", "tensorflow-serving-api>=2.21,<2.22", "flatbuffers"],
        # tools/profile_train_step.py: op statistics from TensorFlow's profiler traces.
        "profile": ["xprof"],
        # experiments/quantizer_compare.py: Google's ai-edge-quantizer recipes against the
        # package's own int8 conversions (pinned: its recipe API is young; it pins ai-edge-litert).
        "quantizer": ["ai-edge-quantizer==0.10.0"],
        # The core tests without TensorFlow (make test-core): references for parity (the CPU
        # build of torch 2.13.0, any other version pulls CUDA packages; HF transformers) and
        # the JAX backend.
        # Hypothesis: the property-based fuzz tests (tests/reliability; conftest loads its profiles).
        # pytest-xdist: `make test` runs the suite in 2 worker processes (most of a test's time
        # is one-threaded: interpreter start, TensorFlow import, tracing), 1.8x faster on 2 cores.
        "test-core": ["pytest", "pytest-xdist", "hypothesis", "torch==2.13.0", "transformers", "jax"],
        "test": [
            "pytest",
            "pytest-xdist",
            "hypothesis",
            "torch==2.13.0",
            "transformers",
            "jax",
            "ai-edge-litert>=2.3",
            "tensorflow-serving-api>=2.21,<2.22",
            "flatbuffers",
            "ai-edge-quantizer==0.10.0",
        ],
    },
    entry_points={
        "console_scripts": [
            "keras-bert-similarity=keras_bert.cli.sentence_similarity:run",
        ],
    },
)
