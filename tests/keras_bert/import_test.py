"""`import keras_bert` on JAX or PyTorch loads no TensorFlow, tensorflow-text or keras-hub, even
where they are installed; their symbols load on first use."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = """
import sys
import keras_bert
loaded = sorted(m for m in ("tensorflow", "tensorflow_text", "keras_hub") if m in sys.modules)
print("loaded:", loaded)
try:
    keras_bert.BertPreprocessor  # a TensorFlow-only symbol: imported now, or a one-line error
    print("lazy:", "tensorflow" in sys.modules)
except ImportError as error:
    print("lazy: missing:", str(error).splitlines()[0])
"""


def test_import_on_jax_loads_no_tensorflow():
    done = subprocess.run([sys.executable, "-c", CHECK], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "KERAS_BACKEND": "jax"}, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "loaded: []", done.stdout
    # Where TensorFlow is installed, the symbol loads it on use; where not, a one-line error.
    assert lines[1] == "lazy: True" or lines[1].startswith(
        "lazy: missing: keras_bert.BertPreprocessor needs tensorflow"), lines[1]


def _run(code, **env):
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()


def test_import_keras_bert_imports_no_keras_and_every_cli_module_neither():
    # The command-line tools parse flags (and answer --help) before Keras starts its backend.
    lines = _run(
        "import sys, importlib, pkgutil\n"
        "import keras_bert, keras_bert.cli, keras_bert.export\n"
        "print(sorted(m for m in ('keras', 'tensorflow', 'numpy') if m in sys.modules))\n"
        "from absl import flags\n"
        "for info in pkgutil.iter_modules(keras_bert.cli.__path__):\n"
        "    if not info.ispkg:\n"
        "        importlib.import_module('keras_bert.cli.' + info.name)\n"
        "        flags.FLAGS.__dict__['__flags'].clear()  # each defines its own flags\n"
        "importlib.import_module('keras_bert.export.cli')\n"
        "print(sorted(m for m in ('keras', 'tensorflow', 'numpy') if m in sys.modules))\n"
    )
    assert lines == ["[]", "[]"]


def test_keras_files_load_after_a_bare_import(tmp_path):
    # Importing Keras registers every keras_bert class, as the eager import used to: a `.keras`
    # file of a task model loads in a process that only imported keras_bert.
    path = tmp_path / "classifier.keras"
    _run(
        "import keras_bert\n"
        "config = keras_bert.BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=1,\n"
        "    num_attention_heads=2, intermediate_size=16, max_position_embeddings=16)\n"
        "encoder = keras_bert.BertEncoder.from_bert_config(config)\n"
        f"keras_bert.BertClassifier(encoder, num_classes=3).save({str(path)!r})\n",
        KERAS_BACKEND="jax",
    )
    lines = _run(
        "import keras_bert, keras\n"
        f"model = keras.saving.load_model({str(path)!r})\n"
        "print(type(model).__name__, model.output_shape)\n",
        KERAS_BACKEND="jax",
    )
    assert lines == ["BertClassifier (None, 3)"]


def test_a_module_imported_directly_then_the_package_names():
    # `import keras` inside a module of ours that is mid-import must not import the rest (it
    # would import that module again, unfinished); the next public lookup does.
    lines = _run(
        "from keras_bert.models.bert_classifier import BertClassifier\n"
        "from keras_bert.api_export import PUBLIC_SYMBOLS\n"
        "partial = len(PUBLIC_SYMBOLS)\n"
        "import keras_bert\n"
        "keras_bert.BertConfig\n"
        "print(partial < len(PUBLIC_SYMBOLS), BertClassifier is keras_bert.BertClassifier)\n",
        KERAS_BACKEND="jax",
    )
    assert lines == ["True True"]
