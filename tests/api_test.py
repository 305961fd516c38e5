"""The public API: every `@keras_bert_export` name resolves, and models hold no Lambda layers."""

import ast
import importlib
import pathlib

import keras
import pytest

import keras_bert
from keras_bert.api_export import PUBLIC_SYMBOLS
from tests.test_case import TINY

ROOT = pathlib.Path(__file__).resolve().parents[1]


def resolve(path):
    module_path, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module_path), name)


def test_public_symbols_were_registered():
    # Importing keras_bert must register the whole public surface.
    assert len(PUBLIC_SYMBOLS) == 111  # grows only with a deliberate export (update this count)
    assert "keras_bert.BertEncoder" in PUBLIC_SYMBOLS


def decorated_names():
    """Every name a `@keras_bert_export("...")` decorator in the package source gives."""
    names = set()
    for path in sorted((ROOT / "keras_bert").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                for decorator in node.decorator_list:
                    if (isinstance(decorator, ast.Call)
                            and getattr(decorator.func, "id", None) == "keras_bert_export"):
                        names.add(decorator.args[0].value)
    return names


def test_every_decorated_name_is_registered_by_importing_keras_bert():
    # A module that `import keras_bert` never reaches would leave its names out of the registry,
    # and so out of the re-export check below.
    assert set(PUBLIC_SYMBOLS) == decorated_names()


@pytest.mark.parametrize("path", sorted(PUBLIC_SYMBOLS))
def test_every_exported_name_is_re_exported(path):
    assert resolve(path) is PUBLIC_SYMBOLS[path], f"{path} is not importable under that name"


def test_keras_classes_are_registered_for_saving():
    for path, symbol in PUBLIC_SYMBOLS.items():
        if isinstance(symbol, type) and hasattr(symbol, "get_config"):
            name = keras.saving.get_registered_name(symbol)
            assert name == f"keras_bert>{symbol.__name__}", path


def all_layers(layer):
    yield layer
    for sub in getattr(layer, "_layers", []):
        yield from all_layers(sub)


def test_models_have_no_lambda_layers():
    encoder = keras_bert.BertEncoder(**TINY)
    for model in (
        encoder,
        keras_bert.BertPretrainer(encoder),
        keras_bert.BertClassifier(encoder, 2),
        keras_bert.BertQuestionAnswerer(encoder),
        keras_bert.BertTokenClassifier(encoder, 2),
    ):
        lambdas = [l.name for l in all_layers(model) if isinstance(l, keras.layers.Lambda)]
        assert lambdas == [], type(model).__name__
