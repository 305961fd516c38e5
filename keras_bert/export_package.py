"""`keras_bert.export` in a source checkout.

The repository keeps the export stage in its own top-level folder, `export/`, beside `keras_bert/`;
setup.py installs that folder as the `keras_bert.export` subpackage (`package_dir`), so a wheel
claims no top-level name but `keras_bert`. In a checkout (tests, Bazel, `python -m` from the
repository root) there is no `keras_bert/export/`: this finder maps the one name
`keras_bert.export` onto `../export/`, and Python's own path search finds its submodules from
there. Where the folder is installed (a wheel), nothing is registered.
"""

import importlib.abc
import importlib.util
import os
import pathlib
import sys

NAME = "keras_bert.export"


class _SourceExportFinder(importlib.abc.MetaPathFinder):
    def __init__(self, folder):
        self.folder = folder

    def find_spec(self, fullname, path=None, target=None):
        if fullname != NAME:
            return None
        return importlib.util.spec_from_file_location(
            NAME, self.folder / "__init__.py", submodule_search_locations=[str(self.folder)]
        )


def register_source_export():
    """Registers the finder when `keras_bert/export/` is absent and `../export/` is there."""
    package = pathlib.Path(os.path.abspath(__file__)).parent  # not resolve(): Bazel runfiles are links
    if (package / "export").is_dir():
        return
    folder = package.parent / "export"
    if not (folder / "__init__.py").is_file():
        return
    if not any(isinstance(f, _SourceExportFinder) for f in sys.meta_path):
        # First: an editable install of another checkout must not map this one's name.
        sys.meta_path.insert(0, _SourceExportFinder(folder))
