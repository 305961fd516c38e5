"""tools/wheel_check.py's own checks: which README block it runs, and which wheels it refuses.
(The check itself, a real build and install, runs in `make test-wheel`.)"""

import zipfile

import pytest

from tools import wheel_check


def _wheel(path, files, top_level):
    with zipfile.ZipFile(path, "w") as archive:
        for name in files:
            archive.writestr(name, "")
        archive.writestr("pkg-0.1.dist-info/top_level.txt", top_level)
    return path


def test_top_level_names_sees_a_second_package(tmp_path):
    good = _wheel(tmp_path / "good.whl", ["keras_bert/__init__.py", "keras_bert/export/cli.py"],
                  "keras_bert\n")
    assert wheel_check.top_level_names(good) == ({"keras_bert"}, {"keras_bert"})
    # The wheel before this check: export/ installed as a global top-level package.
    bad = _wheel(tmp_path / "bad.whl", ["keras_bert/__init__.py", "export/cli.py"],
                 "export\nkeras_bert\n")
    assert wheel_check.top_level_names(bad) == ({"export", "keras_bert"}, {"export", "keras_bert"})


def test_quickstart_block_is_the_first_python_block_of_its_section(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n```python\nbefore()\n```\n\n## Quickstart\n\ntext\n\n"
                      "```sh\npip install x\n```\n\n```python\nfirst()\n```\n\n```python\n"
                      "second()\n```\n\n## Next\n\n```python\nafter()\n```\n")
    assert wheel_check.quickstart_block(readme) == "first()\n"
    readme.write_text("# x\n\n## Install\n\n```python\nx()\n```\n")
    with pytest.raises(SystemExit, match="no \"## Quickstart\" section"):
        wheel_check.quickstart_block(readme)


def test_the_repository_readme_has_a_quickstart():
    assert "import keras_bert" in wheel_check.quickstart_block()
