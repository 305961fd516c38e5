"""keras_bert: exact BERT for TensorFlow / Keras 3. The single dependency list."""

import pathlib

import setuptools

HERE = pathlib.Path(__file__).parent
VERSION = {}
exec((HERE / "keras_bert" / "version.py").read_text(), VERSION)

setuptools.setup(
    name="keras-bert",
    version=VERSION["__version__"],
    description="Exact BERT for TensorFlow / Keras 3: pretrain, fine-tune, serve and ship to phones.",
    long_description=(HERE / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.10",
    packages=setuptools.find_packages(exclude=["tests*", "apps*", "tools*", "docs*", "benchmarks*"]),
    include_package_data=True,
    package_data={"keras_bert": ["assets/*"]},
    exclude_package_data={"": ["BUILD"]},
    install_requires=[
        "tensorflow>=2.21,<2.22",
        "tensorflow-text>=2.21,<2.22",
        "keras>=3.10,<4",
        "keras-hub>=0.32",
        "tensorflow-model-optimization>=0.8",
        # tensorflow-model-optimization pins absl-py~=1.2: do not ask for absl-py 2.
        "absl-py>=1.4,<2",
        "numpy",
        "safetensors",
        "tqdm",
        # TensorBoard summaries of training runs (tf.summary needs it installed).
        "tensorboard",
        # Training-curve plots in docs/ and reports.
        "matplotlib",
    ],
    extras_require={
        # The TFLite interpreter, TF Serving's request protos (warmup records), and the
        # flatbuffers builder for TFLite metadata.
        "export": ["ai-edge-litert>=2.3", "tensorflow-serving-api>=2.21,<2.22", "flatbuffers"],
        # tools/profile_train_step.py: op statistics from TensorFlow's profiler traces.
        "profile": ["xprof"],
        "test": [
            "pytest",
            # References for parity tests: the CPU build of torch 2.13.0 (any other version
            # pulls CUDA packages), HF transformers, and JAX for the backend-portability step.
            "torch==2.13.0",
            "transformers",
            "jax",
            "ai-edge-litert>=2.3",
            "tensorflow-serving-api>=2.21,<2.22",
            "flatbuffers",
        ],
    },
    entry_points={
        "console_scripts": [
            "keras-bert-similarity=keras_bert.cli.sentence_similarity:run",
        ],
    },
)
