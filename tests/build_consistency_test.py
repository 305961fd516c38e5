"""BUILD files stay honest without running Bazel (CONTRIBUTING.md, "BUILD files").

Each check reads the source tree and the Starlark BUILD files (parsed with `ast`: BUILD files here
are plain calls, lists, strings, `+` and `glob`) and fails naming every offender:

- every `.py` module under keras_bert/, export/ and tests/ has a target named after it in its
  directory's BUILD: `py_library` (or `py_binary`) for a module, `py_test` for a `*_test.py`, and
  for `__init__.py` the package's own `py_library`, named after the directory. `__init__.py` is
  not skipped: it has code (keras_bert's public API) and imports, like any module, and pytest
  needs it in runfiles to name test modules as it does outside Bazel;
- every file a target names (srcs, data, main, exports_files) exists, and every first-party label
  (deps, test_suite tests) names a target that exists;
- a `py_test`'s size matches its pytest markers: none -> small, `large` -> medium,
  `extra_large` -> enormous (the largest marker in the file wins: Bazel runs the whole file);
- tests' BUILD files load `py_test` from //tools:pytest.bzl (the native rule would run a pytest
  file as a script, which runs no test and passes) and have the package target it depends on;
- the first-party modules a file imports are reachable through its target's deps (else the Bazel
  run fails with ModuleNotFoundError while pytest passes);
- the root `all_small` test_suite lists every py_test, and `pip_pkg`'s data reaches every
  keras_bert/ and export/ file (else the wheel would lack it);
- targets are listed alphabetically (the package's own target first).
"""

import ast
import dataclasses
import functools
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LIBRARY_ROOTS = ("keras_bert", "export")
TEST_ROOT = "tests"
# apps/ holds the demo apps: Python modules with BUILD targets, not in the pip package.
APPS_ROOT = "apps"
# benchmarks/ compares keras_bert with its peers: BUILD targets, not in the pip package.
BENCHMARKS_ROOT = "benchmarks"
# tools/ holds the build, CI and maintenance scripts: BUILD targets, not in the pip package.
TOOLS_ROOT = "tools"
# experiments/ holds the one-off studies behind the docs' figures: BUILD targets, not in the
# pip package.
EXPERIMENTS_ROOT = "experiments"
FIRST_PARTY = LIBRARY_ROOTS + (APPS_ROOT, BENCHMARKS_ROOT, TOOLS_ROOT, EXPERIMENTS_ROOT, TEST_ROOT)
PYTEST_MACRO = "//tools:pytest.bzl"
# Targets tools/pytest.bzl adds to every py_test, besides the test's own package target.
PYTEST_MACRO_DEPS = ("//tests:conftest",)
SIZE_FOR_MARKER = {None: "small", "large": "medium", "extra_large": "enormous"}
PY_RULES = ("py_library", "py_binary", "py_test")
_UNKNOWN = object()


@dataclasses.dataclass
class Target:
    kind: str
    name: str
    package: str
    attrs: dict
    line: int

    @property
    def label(self):
        return f"//{self.package}:{self.name}"

    def strings(self, attr):
        value = self.attrs.get(attr, [])
        if isinstance(value, str):
            return [value]
        if isinstance(value, list):
            return [v for v in value if isinstance(v, str)]
        return []


@dataclasses.dataclass
class BuildFile:
    package: str
    path: pathlib.Path
    targets: dict
    order: list
    loads: dict
    exported: list


def _is_skipped(path, root):
    rel = path.relative_to(root).parts
    # mutants/: mutmut's working copy of the tree (`make mutation`), gitignored.
    return rel[0] == "mutants" or any(part.startswith(".") or part == "__pycache__" for part in rel)


def _glob(package_dir, include, exclude=()):
    found = set()
    for pattern in include:
        for path in package_dir.glob(pattern):
            if path.is_file():
                found.add(path.relative_to(package_dir).as_posix())
    for pattern in exclude:
        for path in package_dir.glob(pattern):
            found.discard(path.relative_to(package_dir).as_posix())
    # Files in a sub-package belong to that package, not to this glob.
    return sorted(
        f for f in found if not any((package_dir / p / "BUILD").exists() for p in _parents(f))
    )


def _parents(relpath):
    parts = relpath.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _eval(node, env, package_dir):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        values = [_eval(e, env, package_dir) for e in node.elts]
        return _UNKNOWN if any(v is _UNKNOWN for v in values) else values
    if isinstance(node, ast.Name):
        return env.get(node.id, _UNKNOWN)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _eval(node.left, env, package_dir), _eval(node.right, env, package_dir)
        if left is _UNKNOWN or right is _UNKNOWN:
            return _UNKNOWN
        try:
            return left + right
        except TypeError:
            return _UNKNOWN
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "glob":
        args = [_eval(a, env, package_dir) for a in node.args]
        kwargs = {k.arg: _eval(k.value, env, package_dir) for k in node.keywords}
        include = args[0] if args else kwargs.get("include", [])
        exclude = args[1] if len(args) > 1 else kwargs.get("exclude", [])
        if include is _UNKNOWN or exclude is _UNKNOWN:
            return _UNKNOWN
        return _glob(package_dir, include, exclude)
    return _UNKNOWN


def parse_build(path, root):
    """Parses one BUILD file into its targets, `load`ed symbols and exported files."""
    package = path.parent.relative_to(root).as_posix()
    package = "" if package == "." else package
    tree = ast.parse(path.read_text(), filename=str(path))
    env, targets, order, loads, exported = {}, {}, [], {}, []
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            if isinstance(statement.targets[0], ast.Name):
                env[statement.targets[0].id] = _eval(statement.value, env, path.parent)
            continue
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
            continue
        call = statement.value
        if not isinstance(call.func, ast.Name):
            continue
        kind = call.func.id
        args = [_eval(a, env, path.parent) for a in call.args]
        if kind == "load" and args and isinstance(args[0], str):
            for symbol in args[1:]:
                if isinstance(symbol, str):
                    loads[symbol] = args[0]
            for keyword in call.keywords:
                value = _eval(keyword.value, env, path.parent)
                if isinstance(value, str):
                    loads[keyword.arg] = args[0]
            continue
        if kind == "exports_files" and args and isinstance(args[0], list):
            exported.extend(a for a in args[0] if isinstance(a, str))
            continue
        attrs = {k.arg: _eval(k.value, env, path.parent) for k in call.keywords if k.arg}
        name = attrs.get("name")
        if isinstance(name, str):
            targets[name] = Target(kind, name, package, attrs, statement.lineno)
            order.append(name)
    return BuildFile(package, path, targets, order, loads, exported)


@dataclasses.dataclass
class Tree:
    root: pathlib.Path
    builds: dict  # package -> BuildFile
    closures: dict = dataclasses.field(default_factory=dict)  # label -> frozenset of labels

    def target(self, label):
        package, name = split_label(label, "")
        build = self.builds.get(package)
        return build.targets.get(name) if build else None

    def where(self, build, target=None):
        rel = build.path.relative_to(self.root).as_posix()
        return f"{rel}:{target.line} ({target.kind} {target.name!r})" if target else rel


def split_label(label, package):
    """`//a/b:c` -> ("a/b", "c"); `//a/b` -> ("a/b", "b"); `:c` or `c` -> (package, "c")."""
    if label.startswith("//"):
        pkg, _, name = label[2:].partition(":")
        return pkg, name or pkg.rsplit("/", 1)[-1]
    return package, label[1:] if label.startswith(":") else label


def load_tree(root):
    builds = {}
    for path in sorted(root.rglob("BUILD")):
        if path.is_file() and not _is_skipped(path, root) and "third_party" not in path.parts:
            build = parse_build(path, root)
            builds[build.package] = build
    return Tree(root, builds)


def python_files(root, tops=FIRST_PARTY):
    files = []
    for top in tops:
        if (root / top).is_dir():
            files.extend(p for p in sorted((root / top).rglob("*.py")) if not _is_skipped(p, root))
    return files


def check_modules_have_targets(tree):
    problems = []
    for path in python_files(tree.root):
        rel = path.relative_to(tree.root).as_posix()
        package = path.parent.relative_to(tree.root).as_posix()
        build = tree.builds.get(package)
        if build is None:
            problems.append(f"{rel}: no BUILD file in {package}/")
            continue
        if path.name == "__init__.py":
            name, kinds, what = path.parent.name, ("py_library",), "package py_library"
        elif path.name.endswith("_test.py") and rel.startswith(TEST_ROOT + "/"):
            name, kinds, what = path.stem, ("py_test",), "py_test"
        else:
            name, kinds, what = path.stem, ("py_library", "py_binary"), "py_library"
        target = build.targets.get(name)
        if target is None or target.kind not in kinds:
            problems.append(f"{rel}: no {what} named {name!r} in {tree.where(build)}")
        elif path.name not in target.strings("srcs"):
            problems.append(
                f"{rel}: {tree.where(build, target)} does not list {path.name!r} in srcs"
            )
    return problems


def check_labels_exist(tree):
    problems = []
    for build in tree.builds.values():
        base = tree.root / build.package
        for name in build.exported:
            if not (base / name).is_file():
                problems.append(f"{tree.where(build)}: exports_files names missing file {name!r}")
        for target in build.targets.values():
            for attr in ("srcs", "data", "main"):
                for label in target.strings(attr):
                    if label.startswith("@"):
                        continue
                    package, name = split_label(label, build.package)
                    other = tree.builds.get(package)
                    if other is not None and name in other.targets:
                        continue
                    if (tree.root / package / name).is_file() and (
                        package == build.package or other is not None and name in other.exported
                    ):
                        continue
                    if (tree.root / package / name).is_file():
                        problems.append(
                            f"{tree.where(build, target)}: {attr} names {label!r}, a file that "
                            f"//{package} does not exports_files()"
                        )
                    else:
                        problems.append(
                            f"{tree.where(build, target)}: {attr} names {label!r}, which is "
                            "neither a file nor a target"
                        )
            for attr in ("deps", "tests"):
                for label in target.strings(attr):
                    if label.startswith("@"):
                        continue
                    package, name = split_label(label, build.package)
                    if tree.target(f"//{package}:{name}") is None:
                        problems.append(
                            f"{tree.where(build, target)}: {attr} names {label!r}, "
                            "which is not a target"
                        )
    return problems


def size_marker(path):
    """The largest pytest size marker a test file uses: None, "large" or "extra_large"."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("large", "extra_large"):
            owner = node.value
            is_mark = isinstance(owner, ast.Attribute) and owner.attr == "mark"
            is_mark = is_mark and isinstance(owner.value, ast.Name) and owner.value.id == "pytest"
            is_mark = is_mark or isinstance(owner, ast.Name) and owner.id == "mark"
            if is_mark:
                found.add(node.attr)
    return "extra_large" if "extra_large" in found else "large" if "large" in found else None


def check_test_sizes(tree):
    problems = []
    for build in tree.builds.values():
        for target in build.targets.values():
            if target.kind != "py_test":
                continue
            tests = [s for s in target.strings("srcs") if s.endswith("_test.py")]
            path = tree.root / build.package / tests[0] if tests else None
            if path is None or not path.is_file():
                continue  # reported by check_labels_exist / check_modules_have_targets
            marker = size_marker(path)
            want = SIZE_FOR_MARKER[marker]
            size = target.attrs.get("size")  # required by tools/pytest.bzl
            if size != want:
                why = f"pytest.mark.{marker}" if marker else "no size marker"
                problems.append(
                    f"{tree.where(build, target)}: size = {size!r}, but {tests[0]} has {why} "
                    f"(want size = {want!r})"
                )
    return problems


def check_tests_load_macro(tree):
    problems = []
    for build in tree.builds.values():
        uses = any(t.kind == "py_test" for t in build.targets.values())
        if uses and build.loads.get("py_test") != PYTEST_MACRO:
            problems.append(
                f"{tree.where(build)}: uses py_test without "
                f'load("{PYTEST_MACRO}", "py_test") (the native rule runs no pytest test)'
            )
        own = build.package.rsplit("/", 1)[-1]
        if uses and own not in build.targets:
            problems.append(
                f"{tree.where(build)}: py_test needs the package target {own!r} "
                f"(srcs = ['__init__.py']), which {PYTEST_MACRO} adds to its deps"
            )
    return problems


def check_root_targets(tree):
    problems = []
    build = tree.builds.get("")
    if build is None:
        return ["BUILD: no root BUILD file"]
    suite = build.targets.get("all_small")
    if suite is None or suite.kind != "test_suite":
        problems.append("BUILD: no test_suite named 'all_small'")
    else:
        listed = {split_label(t, "") for t in suite.strings("tests")}
        for other in tree.builds.values():
            for target in other.targets.values():
                if target.kind == "py_test" and (other.package, target.name) not in listed:
                    problems.append(f"{tree.where(build, suite)}: tests lacks {target.label!r}")
    pip_pkg = build.targets.get("pip_pkg")
    if pip_pkg is None:
        problems.append("BUILD: no sh_binary named 'pip_pkg'")
        return problems
    shipped = set()
    for label in pip_pkg.strings("data"):
        package, name = split_label(label, "")
        for dep in {f"//{package}:{name}"} | closure(tree, f"//{package}:{name}"):
            target = tree.target(dep)
            if target is not None:
                shipped |= {
                    (tree.root / target.package / src).resolve() for src in target.strings("srcs")
                }
    for path in python_files(tree.root, LIBRARY_ROOTS):
        if path.resolve() not in shipped:
            problems.append(
                f"{tree.where(build, pip_pkg)}: the wheel would lack "
                f"{path.relative_to(tree.root).as_posix()} (no data label reaches its target)"
            )
    return problems


def closure(tree, label):
    """Every first-party target `label` depends on, transitively (with tools/pytest.bzl's deps)."""
    return _closure(tree, label, frozenset())


def _closure(tree, label, visiting):
    cache = tree.closures
    if label in cache:
        return cache[label]
    target = tree.target(label)
    if target is None or label in visiting:
        return frozenset()
    direct = [split_label(d, target.package) for d in target.strings("deps")]
    if target.kind == "py_test":
        direct += [split_label(d, "") for d in PYTEST_MACRO_DEPS]
        direct.append((target.package, target.package.rsplit("/", 1)[-1]))
    deps = set()
    for package, name in direct:
        dep = f"//{package}:{name}"
        deps.add(dep)
        deps |= _closure(tree, dep, visiting | {label})
    cache[label] = frozenset(deps)
    return cache[label]


def source_parts(dotted):
    """A dotted module name as repository path parts: `keras_bert.export.x` lives in export/x."""
    parts = dotted.split(".")
    return parts[1:] if parts[:2] == ["keras_bert", "export"] else parts


def _module_label(root, dotted):
    """`keras_bert.models.bert_config` -> "//keras_bert/models:bert_config", or None."""
    parts = source_parts(dotted)
    if parts[0] not in FIRST_PARTY:
        return None
    path = root.joinpath(*parts)
    if path.with_suffix(".py").is_file():
        return f"//{'/'.join(parts[:-1])}:{parts[-1]}"
    if (path / "__init__.py").is_file():
        return f"//{'/'.join(parts)}:{parts[-1]}"
    return None


def first_party_imports(path, root):
    """The first-party targets a file imports, as labels."""
    tree = ast.parse(path.read_text(), filename=str(path))
    module_parts = list(path.relative_to(root).with_suffix("").parts)
    package_parts = module_parts[:-1]  # __init__.py's package is its own directory, too
    labels = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                # `import a.b.c` imports a, a.b and a.b.c; the deepest is what the code uses.
                label = _module_label(root, alias.name)
                if label:
                    labels.add(label)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[: len(package_parts) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                label = _module_label(root, f"{module}.{alias.name}") or _module_label(root, module)
                if label:
                    labels.add(label)
        elif _is_lazy_package(node):
            # `lazy_exports(globals(), symbols={...}, submodules=(...), tensorflow_symbols={...})`
            # imports those modules on first use: dependencies too.
            package = ".".join(package_parts) if path.name == "__init__.py" else None
            for keyword in node.keywords:
                if keyword.arg in ("symbols", "tensorflow_symbols") and isinstance(
                        keyword.value, ast.Dict):
                    names = [v.value for v in keyword.value.values
                             if isinstance(v, ast.Constant) and isinstance(v.value, str)]
                elif keyword.arg == "submodules" and isinstance(keyword.value, ast.Tuple) and package:
                    names = [f"{package}.{e.value}" for e in keyword.value.elts
                             if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                else:
                    continue
                for name in names:
                    label = _module_label(root, name)
                    if label:
                        labels.add(label)
        elif _is_lazy_export(node):
            # `export_tensorflow_symbols(globals(), {"Name": "keras_bert.x.y", ...})` imports
            # those modules (where TensorFlow is installed): they are dependencies too.
            for value in node.args[1].values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    label = _module_label(root, value.value)
                    if label:
                        labels.add(label)
    return labels


def _is_lazy_package(node):
    return isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports"


def _is_lazy_export(node):
    return (
        isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "export_tensorflow_symbols"
        and len(node.args) == 2
        and isinstance(node.args[1], ast.Dict)
    )


def check_import_deps(tree):
    problems = []
    for build in tree.builds.values():
        for target in build.targets.values():
            if target.kind not in PY_RULES:
                continue
            reachable = closure(tree, target.label) | {target.label}
            for src in target.strings("srcs"):
                package, name = split_label(src, build.package)
                path = tree.root / package / name
                if not name.endswith(".py") or not path.is_file():
                    continue
                for label in sorted(first_party_imports(path, tree.root) - reachable):
                    problems.append(
                        f"{tree.where(build, target)}: {package}/{name} imports {label!r}, "
                        "which its deps do not reach"
                    )
    return problems


def check_alphabetical(tree):
    problems = []
    for build in tree.builds.values():
        own = build.package.rsplit("/", 1)[-1]
        for kind in ("py_library", "py_test"):
            names = [n for n in build.order if build.targets[n].kind == kind and n != own]
            if names != sorted(names):
                problems.append(f"{tree.where(build)}: {kind} targets not alphabetical: {names}")
        if own in build.targets and build.order and build.order[0] != own:
            first = [n for n in build.order if build.targets[n].kind in PY_RULES]
            if first and first[0] != own:
                problems.append(f"{tree.where(build)}: the package target {own!r} is not first")
    return problems


CHECKS = (
    check_modules_have_targets,
    check_labels_exist,
    check_test_sizes,
    check_tests_load_macro,
    check_root_targets,
    check_import_deps,
    check_alphabetical,
)


@functools.lru_cache(maxsize=None)
def _repo_tree():
    return load_tree(ROOT)


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_repository_builds_are_consistent(check):
    problems = check(_repo_tree())
    assert not problems, (
        f"{len(problems)} BUILD problem(s) (tools/update_build.py rewrites BUILD files from the "
        "tree):\n" + "\n".join(problems)
    )


# The checker itself, on a small synthetic tree.

_GOOD_TREE = {
    "BUILD": """
exports_files(["pytest.ini"])
sh_binary(name = "pip_pkg", srcs = ["pip_pkg.sh"], data = ["//keras_bert", "//keras_bert:b"])
test_suite(name = "all_small", tags = ["small"], tests = ["//tests/keras_bert:a_test"])
""",
    "pip_pkg.sh": "",
    "pytest.ini": "",
    "keras_bert/__init__.py": "",
    "keras_bert/a.py": "import keras\n",
    "keras_bert/b.py": "from keras_bert import a\n",
    "keras_bert/BUILD": """
py_library(name = "keras_bert", srcs = ["__init__.py"])
py_library(name = "a", srcs = ["a.py"])  # pip: keras
py_library(name = "b", srcs = ["b.py"], deps = [":a"])
""",
    "tests/__init__.py": "",
    "tests/conftest.py": "",
    "tests/BUILD": """
py_library(name = "tests", srcs = ["__init__.py"])
py_library(name = "conftest", srcs = ["conftest.py"], data = ["//:pytest.ini"], deps = [":tests"])
""",
    "tests/keras_bert/__init__.py": "",
    "tests/keras_bert/a_test.py": "from keras_bert.b import x\n\ndef test_x():\n    pass\n",
    "tests/keras_bert/BUILD": """
load("//tools:pytest.bzl", "py_test")

py_library(name = "keras_bert", srcs = ["__init__.py"], deps = ["//tests"])

py_test(
    name = "a_test",
    size = "small",
    srcs = ["a_test.py"],
    deps = ["//keras_bert:b"],
)
""",
}


def _make_tree(tmp_path, changes=None):
    files = dict(_GOOD_TREE, **(changes or {}))
    for rel, text in files.items():
        if text is None:
            continue
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return load_tree(tmp_path)


def _all_problems(tree):
    return [p for check in CHECKS for p in check(tree)]


def test_checker_accepts_a_consistent_tree(tmp_path):
    assert _all_problems(_make_tree(tmp_path)) == []


@pytest.mark.parametrize(
    "changes, expected",
    [
        ({"keras_bert/c.py": ""}, "keras_bert/c.py: no py_library named 'c'"),
        (
            {"tests/keras_bert/c_test.py": ""},
            "tests/keras_bert/c_test.py: no py_test named 'c_test'",
        ),
        ({"keras_bert/a.py": None}, "names 'a.py', which is neither a file nor a target"),
        (
            {
                "tests/keras_bert/a_test.py": "import pytest\n\n@pytest.mark.large\ndef test_x():\n    pass\n"
            },
            "but a_test.py has pytest.mark.large (want size = 'medium')",
        ),
        (
            {
                "tests/keras_bert/a_test.py": "import pytest\n\npytestmark = pytest.mark.extra_large\n"
            },
            "(want size = 'enormous')",
        ),
        (
            {
                "tests/keras_bert/BUILD": _GOOD_TREE["tests/keras_bert/BUILD"].replace(
                    "load(", "# load("
                )
            },
            'uses py_test without load("//tools:pytest.bzl", "py_test")',
        ),
        (
            {
                "tests/keras_bert/BUILD": _GOOD_TREE["tests/keras_bert/BUILD"].replace(
                    '"//keras_bert:b"', ""
                )
            },
            "imports '//keras_bert:b', which its deps do not reach",
        ),
        (
            {"BUILD": _GOOD_TREE["BUILD"].replace(', "//keras_bert:b"', "")},
            "the wheel would lack keras_bert/b.py",
        ),
        ({"BUILD": _GOOD_TREE["BUILD"].replace('"//tests/keras_bert:a_test"', "")}, "tests lacks"),
        (
            {
                "keras_bert/BUILD": _GOOD_TREE["keras_bert/BUILD"].replace(
                    'deps = [":a"]', 'deps = [":z"]'
                )
            },
            "deps names ':z', which is not a target",
        ),
    ],
)
def test_checker_names_the_offender(tmp_path, changes, expected):
    problems = _all_problems(_make_tree(tmp_path, changes))
    assert any(expected in p for p in problems), problems
