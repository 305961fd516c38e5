"""absl flags are global: two modules that define one flag name at import time cannot be imported
into one process, and pytest imports every test module (and what each imports) into one. This
reads, with `ast`, which modules the tests import and what those define at module level; a CLI
whose flags would collide defines them in a `define_flags()` called under `__main__` instead
(experiments/downstream_proof.py, keras_bert/cli/run_squad.py).
"""

import ast
import pathlib

from tests.build_consistency_test import source_parts

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("keras_bert", "export", "apps", "benchmarks", "tools", "experiments")


def module_file(name):
    """The repository file that the dotted module `name` is, or None (a third-party module)."""
    parts = source_parts(name)
    if parts[0] not in PACKAGES:
        return None
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_files(path):
    """Repository files that `path` imports anywhere (module level or inside a function)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from package import module` imports package.module when that is a file.
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            for end in range(1, len(parts) + 1):  # importing a.b.c runs a and a.b too
                target = module_file(".".join(parts[:end]))
                if target is not None:
                    found.add(target)
    return found


def module_level_flags(path):
    """The flag names `path` defines when it is imported: `flags.DEFINE_*("name", ...)` calls at
    module level."""
    names = []
    for node in ast.parse(path.read_text(), filename=str(path)).body:
        call = node.value if isinstance(node, ast.Expr) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr.startswith("DEFINE") and call.args
                and isinstance(call.args[0], ast.Constant)):
            names.append(call.args[0].value)
    return names


def files_the_tests_import():
    pending = set()
    for test in (ROOT / "tests").rglob("*.py"):
        pending |= imported_files(test)
    seen = set()
    while pending:
        path = pending.pop()
        if path not in seen:
            seen.add(path)
            pending |= imported_files(path) - seen
    return seen


def test_the_reader_sees_module_level_flags_and_transitive_imports(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("from absl import flags\nflags.DEFINE_string('output', None, 'x')\n"
                      "def f():\n    flags.DEFINE_string('inside', None, 'x')\n")
    assert module_level_flags(source) == ["output"]
    closure = files_the_tests_import()
    assert ROOT / "keras_bert" / "__init__.py" in closure  # a package a test's import runs
    assert ROOT / "experiments" / "plot_pretraining_log.py" in closure  # `from experiments import m`
    # No test imports export/serving/line_table.py; modules the tests import do.
    assert not any("line_table" in path.read_text() for path in (ROOT / "tests").rglob("*.py")
                   if path.name != "flag_names_test.py")
    assert ROOT / "export" / "serving" / "line_table.py" in closure


def test_no_two_modules_the_tests_import_define_the_same_flag():
    owners = {}
    for path in sorted(files_the_tests_import()):
        for name in module_level_flags(path):
            owners.setdefault(name, []).append(str(path.relative_to(ROOT)))
    clashes = {name: paths for name, paths in owners.items() if len(paths) > 1}
    assert not clashes, (
        f"flags defined at import time by more than one module the tests import: {clashes}; "
        "define them in a define_flags() called under `if __name__ == '__main__':`")
