"""Writes the BUILD files of keras_bert/, export/ and tests/ (and the root test list) from the tree.

    .venv/bin/python tools/update_build.py          # rewrite BUILD files that are out of date
    .venv/bin/python tools/update_build.py --check  # exit 1 and list them, write nothing

One target per module, following CONTRIBUTING.md, "BUILD files" (TF-MOT model):
- a module `m.py` -> `py_library(name = "m")` (an existing `py_binary` stays one);
  `__init__.py` -> the package target named after the directory, first in the file;
- `tests/**/x_test.py` -> `py_test(name = "x_test")` from //tools:pytest.bzl, size from its pytest
  markers (none -> small, large -> medium, extra_large -> enormous);
- deps: the first-party modules each file imports; third-party imports become `# pip: name`;
- the root `pip_pkg` ships every package target of keras_bert/ and export/, plus any module
  that no `__init__.py` reaches through imports (console-script modules such as keras_bert/cli/*);
- kept from the current BUILD file: data, tags, args, env, timeout, flaky, shard_count,
  visibility, testonly and main of every target, and any target whose kind is not a Python rule.
tests/build_consistency_test.py checks the same rules without writing anything.
"""

import argparse
import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests import build_consistency_test as bct  # noqa: E402  (the one BUILD parser)

KEPT_ATTRS = (
    "main",
    "data",
    "args",
    "env",
    "tags",
    "timeout",
    "flaky",
    "shard_count",
    "visibility",
    "testonly",
)
# Import name -> pip distribution, where they differ.
PIP_NAMES = {
    "absl": "absl-py",
    "ai_edge_litert": "ai-edge-litert",
    "keras_hub": "keras-hub",
    "safetensors": "safetensors",
    "tensorflow_text": "tensorflow-text",
    "tf_keras": "tf-keras",
    "yaml": "pyyaml",
}
HEADERS = {
    "library": (
        "# {package}\n"
        "# One py_library per module (alphabetical), after the package target (__init__.py). deps are\n"
        "# the first-party modules a file imports; third-party packages come from the pip environment\n"
        "# (setup.py), marked `# pip: name`, never Bazel deps. Regenerate with tools/update_build.py."
    ),
    "tests": (
        "# {package}\n"
        "# One py_test per *_test.py, run by pytest (//tools:pytest.bzl) and sized from its pytest\n"
        "# markers (none -> small, large -> medium, extra_large -> enormous); one py_library per\n"
        "# helper module. Regenerate with tools/update_build.py."
    ),
}


def third_party_imports(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    local = {p.stem for p in path.parent.glob("*.py")}
    return sorted(
        PIP_NAMES.get(n, n.replace("_", "-"))
        for n in names
        if n not in sys.stdlib_module_names
        and n not in bct.FIRST_PARTY
        and n not in local
        and n != "__future__"
    )


def has_fixture_files(root):
    fixtures_dir = root / bct.TEST_ROOT / "fixtures"
    return fixtures_dir.is_dir() and any(
        p.is_file() and p.name != "BUILD" and p.suffix != ".py" and "__pycache__" not in p.parts
        for p in fixtures_dir.rglob("*")
    )


def mentions_fixtures(path):
    text = path.read_text()
    return '"fixtures"' in text or "'fixtures'" in text or "/fixtures" in text


def relative(label, package):
    pkg, name = bct.split_label(label, package)
    if pkg == package:
        return f":{name}"
    return f"//{pkg}" if pkg.rsplit("/", 1)[-1] == name else f"//{pkg}:{name}"


def _sort_key(label):
    """Buildifier's order: local labels first, then by (package, name)."""
    if label.startswith(":"):
        return (0, "", label)
    package, name = bct.split_label(label, "")
    return (1, package, name if ":" in label else "")


def format_target(kind, attrs, kept):
    """attrs: ordered (name, value) of generated attributes; kept: attr -> source text."""
    lines = [f"{kind}("]
    for key in ("name", "size", "srcs"):
        if key in attrs:
            value = attrs[key]
            lines.append(
                f"    {key} = {format_list(value) if isinstance(value, list) else repr_str(value)},"
            )
    for key in KEPT_ATTRS:
        if key in kept:
            comments, text = kept[key]
            lines.extend(comments)
            lines.append(f"    {key} = {text},")
        elif key == "data" and attrs.get("data"):
            lines.append(f"    data = {format_list(attrs['data'])},")
    deps, pips = attrs.get("deps", []), attrs.get("pip", [])
    if deps or pips:
        lines.append("    deps = [")
        lines.extend(f"        {repr_str(d)}," for d in deps)
        lines.extend(f"        # pip: {p}" for p in pips)
        lines.append("    ],")
    lines.append(")")
    return "\n".join(lines)


def repr_str(value):
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_list(values):
    if len(values) == 1:
        return f"[{repr_str(values[0])}]"
    return "[\n" + "".join(f"        {repr_str(v)},\n" for v in values) + "    ]"


def kept_attrs(build_path, target):
    """attr -> (comment lines just above it, source text), for the attributes we keep."""
    if target is None:
        return {}
    source = build_path.read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    kept = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and node.lineno == target.line
        ):
            for keyword in node.value.keywords:
                if keyword.arg in KEPT_ATTRS:
                    comments, i = [], keyword.value.lineno - 2
                    while i >= 0 and lines[i].strip().startswith("#"):
                        comments.insert(0, "    " + lines[i].strip())
                        i -= 1
                    kept[keyword.arg] = (comments, ast.get_source_segment(source, keyword.value))
    return kept


def package_build(root, package_dir, old):
    package = package_dir.relative_to(root).as_posix()
    top = package.split("/")[0]
    own = package_dir.name
    is_tests = top == bct.TEST_ROOT
    modules = sorted(
        p
        for p in package_dir.glob("*.py")
        if p.name != "__init__.py" and not bct._is_skipped(p, root)
    )
    fixtures_dir = root / bct.TEST_ROOT / "fixtures"
    is_fixtures = package_dir == fixtures_dir or fixtures_dir in package_dir.parents
    fixtures = has_fixture_files(root)
    blocks = []

    def imports_of(path, self_label):
        labels = bct.first_party_imports(path, root) - {self_label}
        return [relative(label, package) for label in labels]

    def block(name, path, kind_default, extra_deps=(), size=None):
        old_target = old.targets.get(name) if old else None
        kind = kind_default
        if (
            old_target is not None
            and old_target.kind == "py_binary"
            and kind_default == "py_library"
        ):
            kind = "py_binary"
        self_label = f"//{package}:{name}"
        deps = (
            set(extra_deps) | set(imports_of(path, self_label))
            if path.is_file()
            else set(extra_deps)
        )
        deps.discard(f":{name}")
        attrs = {"name": name}
        if size:
            attrs["size"] = size
        attrs["srcs"] = [path.name]
        if is_tests and fixtures and not is_fixtures and path.is_file() and mentions_fixtures(path):
            attrs["data"] = [FIXTURES_LABEL]
        attrs["deps"] = sorted(deps, key=_sort_key)
        attrs["pip"] = third_party_imports(path) if path.is_file() else []
        kept = kept_attrs(old.path, old_target) if old else {}
        if "data" in kept and "data" in attrs:
            del attrs["data"]  # a hand-written data list wins
        return format_target(kind, attrs, kept)

    init = package_dir / "__init__.py"
    if init.is_file():
        extra = []
        if is_tests:
            # pytest names test modules by their __init__.py chain: keep the parents in runfiles.
            # (Not in keras_bert/: `from keras_bert import layers` in keras_bert/__init__.py
            # would then be a cycle.)
            parent = package_dir.parent.relative_to(root).as_posix()
            extra = [f"//{parent}"] if parent.startswith(bct.TEST_ROOT) else []
        blocks.append(block(own, init, "py_library", extra))
    own_dep = [f":{own}"] if is_tests and init.is_file() else []
    tests = []
    for module in modules:
        if is_tests and module.name.endswith("_test.py"):
            size = bct.SIZE_FOR_MARKER[bct.size_marker(module)]
            tests.append(block(module.stem, module, "py_test", size=size))
        else:
            blocks.append(block(module.stem, module, "py_library", own_dep))
    blocks.extend(tests)
    # Keep targets the generator does not own (filegroups, test_suites, ...).
    generated = {own} | {m.stem for m in modules}
    exports = []  # exports_files() calls, kept first (other packages' rules name these files)
    if old:
        source = old.path.read_text()
        tree = ast.parse(source)
        for node in tree.body:
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                call = node.value
                name = next(
                    (
                        k.value.value
                        for k in call.keywords
                        if k.arg == "name" and isinstance(k.value, ast.Constant)
                    ),
                    None,
                )
                kind = getattr(call.func, "id", "")
                if kind == "exports_files":
                    exports.append(ast.get_source_segment(source, node))
                if name and name not in generated and kind not in bct.PY_RULES:
                    blocks.append(ast.get_source_segment(source, node))
    if package_dir == fixtures_dir and "data" not in (old.targets if old else {}):
        blocks.append(FIXTURES_TARGET)
    header = HEADERS["tests" if is_tests else "library"].format(package=package)
    text = header + "\n\n"
    if tests:
        text += 'load("//tools:pytest.bzl", "py_test")\n\n'
    text += 'package(default_visibility = ["//visibility:public"])\n\nlicenses(["notice"])\n'
    for b in exports + blocks:
        text += "\n" + b + "\n"
    return text


FIXTURES_LABEL = "//tests/fixtures:data"
FIXTURES_TARGET = """filegroup(
    name = "data",
    srcs = glob(
        ["**"],
        exclude = [
            "**/*.py",
            "**/BUILD",
            "**/__pycache__/**",
        ],
    ),
)"""


def fixtures_build():
    """tests/fixtures/BUILD when the directory holds data files but no Python module."""
    return (
        "# tests/fixtures: data files the tests read (vocab, corpus, golden outputs): the filegroup\n"
        f"# {FIXTURES_LABEL}. Regenerate: tools/update_build.py\n\n"
        'package(default_visibility = ["//visibility:public"])\n\nlicenses(["notice"])\n\n'
        + FIXTURES_TARGET
        + "\n"
    )


def label_file(root, label):
    package, name = bct.split_label(label, "")
    module = root / package / f"{name}.py"
    if module.is_file():
        return module
    init = root / package / "__init__.py"
    return init if init.is_file() and package.rsplit("/", 1)[-1] == name else None


def pip_pkg_data(root):
    """Package targets of keras_bert/ and export/, plus modules no __init__.py import reaches."""
    files = bct.python_files(root, bct.LIBRARY_ROOTS)
    inits = [p for p in files if p.name == "__init__.py"]
    labels = [f"//{p.parent.relative_to(root).as_posix()}" for p in inits]
    reached, todo = set(), list(inits)
    while todo:
        path = todo.pop()
        if path in reached:
            continue
        reached.add(path)
        for label in bct.first_party_imports(path, root):
            target = label_file(root, label)
            if target is not None:
                todo.append(target)
    for path in files:
        if path not in reached:
            labels.append(f"//{path.parent.relative_to(root).as_posix()}:{path.stem}")
            todo = [path]
            while todo:  # what this module imports ships with it
                current = todo.pop()
                if current in reached:
                    continue
                reached.add(current)
                todo.extend(
                    f
                    for f in (label_file(root, l) for l in bct.first_party_imports(current, root))
                    if f
                )
    return sorted(labels, key=_sort_key)


def root_build(root, test_labels):
    data = ['"setup.py"'] + [f'"{label}"' for label in pip_pkg_data(root)]
    tests = "".join(f'        "{label}",\n' for label in sorted(test_labels, key=_sort_key))
    return (
        "# Root BUILD: the pip package and the test suite. See tools/bazel_ci.sh for the offline setup.\n"
        "# Regenerate: tools/update_build.py\n\n"
        'package(default_visibility = ["//visibility:public"])\n\nlicenses(["notice"])\n\n'
        'exports_files([\n    "pytest.ini",\n    "setup.py",\n])\n\n'
        "# `bazel run //:pip_pkg -- /abs/dir` builds the wheel from exactly the files declared here.\n"
        "sh_binary(\n"
        '    name = "pip_pkg",\n'
        '    srcs = ["//tools:pip_pkg.sh"],\n'
        "    data = [\n"
        + "".join(f"        {d},\n" for d in data)
        + '    ] + glob(["README.md"]),\n'
        ")\n\n"
        "# Every py_test in the tree (tests/build_consistency_test.py keeps this list complete);\n"
        '# `tags = ["small"]` keeps the fast tier: `bazel test //:all_small`.\n'
        "test_suite(\n"
        '    name = "all_small",\n'
        '    tags = ["small"],\n'
        "    tests = [\n" + tests + "    ],\n"
        ")\n"
    )


def wanted_files(root):
    """BUILD path -> wanted text."""
    wanted = {}
    fixtures_dir = root / bct.TEST_ROOT / "fixtures"
    dirs = sorted({p.parent for p in bct.python_files(root)})
    if has_fixture_files(root) and fixtures_dir not in dirs:
        wanted[fixtures_dir / "BUILD"] = fixtures_build()
    test_labels = []
    for package_dir in dirs:
        build_path = package_dir / "BUILD"
        old = bct.parse_build(build_path, root) if build_path.is_file() else None
        text = package_build(root, package_dir, old)
        wanted[build_path] = text
        package = package_dir.relative_to(root).as_posix()
        test_labels.extend(
            f"//{package}:{p.stem}"
            for p in package_dir.glob("*_test.py")
            if package.startswith(bct.TEST_ROOT)
        )
    wanted[root / "BUILD"] = root_build(root, test_labels)
    return wanted


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="list stale BUILD files, write nothing"
    )
    args = parser.parse_args(argv)
    stale = []
    for path, text in wanted_files(ROOT).items():
        if not path.is_file() or path.read_text() != text:
            stale.append(path.relative_to(ROOT).as_posix())
            if not args.check:
                path.write_text(text)
    verb = "stale" if args.check else "wrote"
    for rel in stale:
        print(f"{verb}: {rel}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
