"""`import keras_bert` imports nothing heavy: public names load on first use.

Keras starts its backend when imported (TensorFlow on the TensorFlow backend: ~3 s of a 2-core
machine), so a package that imports its models eagerly makes every command-line tool that
lives in it pay that before parsing `--help`. The top-level package therefore maps each public
name to the module defining it and imports that module on first attribute access (PEP 562),
as transformers does.

One thing eagerness gave for free is kept: Keras loads a `.keras` file's `keras_bert>...`
classes only if they are registered, which happens when their modules are imported. So the
moment Keras itself is imported — by anyone, before or after `import keras_bert` — every public
module of the package is imported too (`register_after_keras`), and
`import keras_bert; keras.saving.load_model("model.keras")` works as before. Where TensorFlow
is missing, or Keras runs on JAX or PyTorch, the TensorFlow-only names are left out of that and
raise the install hint (`tensorflow_extra.missing_tensorflow`) on use.
"""

import importlib
import importlib.abc
import importlib.util
import sys

from keras_bert.tensorflow_extra import TENSORFLOW_MODULES
from keras_bert.tensorflow_extra import has_tensorflow
from keras_bert.tensorflow_extra import missing_tensorflow


def lazy_exports(namespace, symbols, submodules, tensorflow_symbols):
    """Installs `__getattr__`, `__dir__`, `__all__` and `_import_all` in the package whose
    globals are `namespace`, and returns `_import_all` (imports every public module; the
    top-level package's also runs each lazy subpackage's).

    symbols / tensorflow_symbols: `{name: module defining it}`; submodules: names of subpackages
    exposed as attributes (`keras_bert.data`).
    """
    package = namespace["__name__"]
    everything = {**symbols, **tensorflow_symbols}

    def __getattr__(name):
        if name in everything or name in submodules:
            _import_keras()  # first, so registration runs before any module of ours starts
            _register_if_safe()
        if name in submodules:
            return importlib.import_module(f"{package}.{name}")
        if name not in everything:
            # Any other module of the package, as an eager package had it imported already.
            if not name.startswith("_") and importlib.util.find_spec(f"{package}.{name}"):
                _import_keras()
                _register_if_safe()
                return importlib.import_module(f"{package}.{name}")
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        try:
            module = importlib.import_module(everything[name])
        except ModuleNotFoundError as error:
            if name in tensorflow_symbols and (error.name or "").split(".")[0] in TENSORFLOW_MODULES:
                raise missing_tensorflow(f"{package}.{name}", error) from None
            raise
        value = getattr(module, name)
        namespace[name] = value  # later lookups skip this function
        return value

    def __dir__():
        return sorted(set(namespace) | set(everything) | set(submodules))

    def import_all():
        """Imports every public module (registering its Keras classes); TF-only ones on TF."""
        import keras

        for name in submodules:
            module = importlib.import_module(f"{package}.{name}")
            if hasattr(module, "_import_all"):
                module._import_all()  # a lazy subpackage
        names = dict(symbols)
        if has_tensorflow() and keras.config.backend() == "tensorflow":
            names.update(tensorflow_symbols)
        for name, module in names.items():
            namespace[name] = getattr(importlib.import_module(module), name)

    namespace["__getattr__"] = __getattr__
    namespace["__dir__"] = __dir__
    namespace["__all__"] = sorted(everything) + sorted(submodules)
    namespace["_import_all"] = import_all
    return import_all


_pending = []  # the registration callback, until it has run


def _import_keras():
    try:
        import keras  # noqa: F401 - importing it runs the registration (register_after_keras)
    except ModuleNotFoundError:
        pass  # the module that needs it says so


def _ours_initializing():
    """Whether a module of this package is part-way through its own import."""
    return any(
        getattr(getattr(module, "__spec__", None), "_initializing", False)
        for name, module in list(sys.modules.items())
        if name.startswith("keras_bert.")
    )


class _AfterKerasFinder(importlib.abc.MetaPathFinder):
    """Finds `keras` through the other finders and runs `callback` once Keras has loaded."""

    def __init__(self, callback):
        self.callback = callback

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "keras":
            return None
        sys.meta_path.remove(self)  # once; and so find_spec below sees the real finders
        spec = importlib.util.find_spec("keras")
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenCall(spec.loader, self.callback)
        return spec


class _ThenCall(importlib.abc.Loader):
    def __init__(self, loader, callback):
        self.loader, self.callback = loader, callback

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        module.__loader__ = self.loader
        self.loader.exec_module(module)
        self.callback()


def register_after_keras(callback):
    """Runs `callback` now if Keras is imported, else right after the first `import keras`.

    Not while one of our modules is part-way through its import (`from keras_bert.models.x import
    Y` reaching `import keras` in x's body): importing the rest then would import x again,
    unfinished. The next public-name lookup (`keras_bert.Y`) runs it instead.
    """
    _pending.append(callback)
    if "keras" in sys.modules:
        _register_if_safe()
    elif not any(isinstance(finder, _AfterKerasFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterKerasFinder(_register_if_safe))


def _register_if_safe():
    if _pending and "keras" in sys.modules and not _ours_initializing():
        _pending.pop()()
