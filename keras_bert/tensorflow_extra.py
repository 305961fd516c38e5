"""TensorFlow is optional: the core (models, layers, weight import, the reference tokenizer, numpy
packing, SQuAD scoring, `fit` on any Keras backend) runs without it; the in-graph tokenizer,
tf.data/TFRecord pipelines, tf.distribute, TF1 checkpoints and export need it.

`pip install keras-exact-bert[tf]` installs TensorFlow and tensorflow-text (`make demo` and `make
test` do); `pip install keras-exact-bert` plus one Keras backend (jax or torch) is the core.
"""

import importlib
import importlib.util

INSTALL_HINT = "pip install 'keras-exact-bert[tf]' (TensorFlow and tensorflow-text)"
# Top-level modules the TensorFlow-only parts import.
TENSORFLOW_MODULES = ("tensorflow", "tensorflow_text", "keras_hub")


def check_keras_backend():
    """Before Keras is imported: a one-line error if Keras would start on a TensorFlow backend
    that is not installed (Keras's default when neither `KERAS_BACKEND` nor keras.json names
    another), instead of an import failure deep inside Keras."""
    import json
    import os

    backend = os.environ.get("KERAS_BACKEND")
    if backend is None:
        home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
        try:
            with open(os.path.join(home, "keras.json")) as f:
                backend = json.load(f).get("backend")
        except (OSError, ValueError):
            backend = None
    if (backend or "tensorflow") == "tensorflow" and not has_tensorflow():
        raise ImportError(
            "Keras is set to the TensorFlow backend, which is not installed: set KERAS_BACKEND="
            f"jax or KERAS_BACKEND=torch for the TensorFlow-free core, or {INSTALL_HINT}."
        )


def has_tensorflow():
    """Whether TensorFlow is installed (not whether it is imported: this imports nothing)."""
    return importlib.util.find_spec("tensorflow") is not None


def missing_tensorflow(what, error):
    """The one-line `ImportError` for `what` (a feature) when `error` is a missing TF module."""
    return ImportError(
        f"{what} needs {error.name}, which is not installed: {INSTALL_HINT}. The TensorFlow-free "
        "core (models, weight import, ReferenceTokenizer, numpy packing, fit on JAX or PyTorch) "
        "works without it."
    )


def import_tensorflow(what):
    """`import tensorflow` for `what`, with the install hint when it is missing."""
    try:
        return importlib.import_module("tensorflow")
    except ModuleNotFoundError as error:
        raise missing_tensorflow(what, error) from None


def export_tensorflow_symbols(namespace, symbols):
    """Makes `symbols` (`{name: module}`) attributes of the package whose globals are `namespace`.

    On the TensorFlow backend they are imported now, as they always were (so every Keras class
    is registered for `.keras` loading and a TensorFlow user sees no change). On JAX or PyTorch
    they are imported on first use, so `import keras_bert` loads no TensorFlow, tensorflow-text
    or keras-hub even where they are installed (7.8 s of 8 measured on a Zen 5 core); without
    TensorFlow, using one raises `missing_tensorflow`'s one-line error.
    """
    import keras

    if has_tensorflow() and keras.config.backend() == "tensorflow":
        for name, module in symbols.items():
            namespace[name] = getattr(importlib.import_module(module), name)
        return

    def __getattr__(name):
        if name not in symbols:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        try:
            module = importlib.import_module(symbols[name])
        except ModuleNotFoundError as error:
            if error.name and error.name.split(".")[0] in TENSORFLOW_MODULES:
                raise missing_tensorflow(f"{namespace['__name__']}.{name}", error) from None
            raise
        value = getattr(module, name)
        namespace[name] = value  # later lookups skip this function
        return value

    namespace["__getattr__"] = __getattr__
