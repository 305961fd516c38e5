"""Every dependency in setup.py is imported by the code that needs it (read with `ast`)."""

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCE_DIRS = ("keras_bert", "export", "apps", "benchmarks", "tools", "experiments", "tests")

# Distribution name -> the module it is imported as, where the two differ.
IMPORT_NAMES = {
    "absl-py": "absl",
    "tensorflow-text": "tensorflow_text",
    "keras-hub": "keras_hub",
    "ai-edge-litert": "ai_edge_litert",
    "tensorflow-serving-api": "tensorflow_serving",
    "ai-edge-quantizer": "ai_edge_quantizer",
}
# Needed at run time without an import statement of ours, each with the reason.
NOT_IMPORTED = {
    "tensorboard": "tf.summary writes event files only when it is installed",
    "pytest-xdist": "a pytest plugin: `make test` runs `pytest -n 2`",
    "jax": "a Keras backend: `make test-core` runs the core tests with KERAS_BACKEND=jax",
}


def setup_requirements():
    """{distribution name: [list names in setup.py]} of install_requires and every extra."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in ("install_requires", "extras_require"):
            lists = [node.value] if isinstance(node.value, ast.List) else node.value.values
            for key, value in zip(getattr(node.value, "keys", [None]), lists):
                for element in value.elts:
                    name = re.split(r"[<>=!~\[; ]", element.value)[0].lower()
                    found.setdefault(name, []).append(key.value if key else "install_requires")
    return found


def imported_top_level_modules():
    modules = set()
    for directory in SOURCE_DIRS:
        for path in (ROOT / directory).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
                if isinstance(node, ast.Import):
                    modules.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules.add(node.module.split(".")[0])
    return modules


def test_setup_py_is_read():
    requirements = setup_requirements()
    assert {"keras", "tensorflow", "ai-edge-litert", "pytest"} <= set(requirements)


def test_every_dependency_is_imported():
    imported = imported_top_level_modules()
    unused = [
        f"{name} ({', '.join(where)})"
        for name, where in sorted(setup_requirements().items())
        if name not in NOT_IMPORTED and IMPORT_NAMES.get(name, name.replace("-", "_")) not in imported
    ]
    assert unused == [], "in setup.py but imported nowhere: drop them or say why in NOT_IMPORTED"


def test_exceptions_are_still_dependencies():
    assert set(NOT_IMPORTED) <= set(setup_requirements())
