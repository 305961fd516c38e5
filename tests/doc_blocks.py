"""The code blocks of the Markdown docs (README.md, docs/guides/), run as a reader would run them.

The convention: a fenced block in `python`, `sh` or `bash` runs, unchanged, unless the line just
before its fence is `<!-- not run: <why> -->`. A ```text fence (a tree, printed output) never
runs; a fence with no language is not allowed, so nothing is left ambiguous. The tests count the
blocks that do not run, so a new one cannot slip by.

A `python` block runs in a fresh interpreter (this one); an `sh` / `bash` block runs under
`bash -euo pipefail` with this interpreter's bin folder first on PATH, so its `python` is the test
environment's. Both run in the folder given, with the checkout on PYTHONPATH.
"""

import dataclasses
import gzip
import json
import os
import pathlib
import re
import subprocess
import sys

from tests.data_paths import first_dev_questions
from tests.data_paths import shared_data_dir

ROOT = pathlib.Path(__file__).resolve().parents[1]
RUN_LANGUAGES = ("python", "sh", "bash")
_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
_NOT_RUN = re.compile(r"<!-- not run: (.+?) -->")
_HEADING = re.compile(r"^#+ (.+)$", re.M)


@dataclasses.dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language and code, and why it does not run (if so)."""

    path: pathlib.Path
    line: int  # the opening fence's line, from 1
    language: str
    code: str
    section: str  # the nearest heading above it, without its #s
    not_run: str = None  # the reason of its `<!-- not run: ... -->`, else None

    @property
    def runs(self):
        return self.language in RUN_LANGUAGES and self.not_run is None

    def __str__(self):
        return f"{self.path.relative_to(ROOT)}:{self.line} ({self.language}, {self.section!r})"


def blocks(path):
    """Every fenced block of the Markdown file `path`, in order."""
    path = pathlib.Path(path)
    text = path.read_text(encoding="utf-8")
    found, section, prose_start = [], "", 0
    for match in _FENCE.finditer(text):
        before = text[: match.start()]
        section = ([section] + _HEADING.findall(text[prose_start : match.start()]))[-1]
        prose_start = match.end()  # a `#` line inside a block is no heading
        previous_line = before.rstrip("\n").rsplit("\n", 1)[-1]
        not_run = _NOT_RUN.fullmatch(previous_line.strip())
        found.append(Block(path, before.count("\n") + 1, match.group(1).strip(), match.group(2),
                           section, not_run and not_run.group(1)))
    return found


def run(block, cwd, timeout=1200):
    """Runs `block` in `cwd`; returns the `subprocess.CompletedProcess` (text stdout, stderr)."""
    assert block.runs, f"{block} is not a runnable block"
    bin_dir = os.path.dirname(sys.executable)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    if block.language == "python":
        command = [sys.executable, "-c", block.code]
    else:
        command = ["bash", "-euo", "pipefail", "-c", block.code]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def run_in_order(runnable, cwd, timeout=1200):
    """Runs the blocks one after another in `cwd` (later ones use earlier ones' files); each must
    exit 0. Returns their `CompletedProcess`es."""
    done = []
    for block in runnable:
        result = run(block, cwd, timeout)
        assert result.returncode == 0, (
            f"{block} exited {result.returncode}:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}")
        done.append(result)
    return done


# === The small real inputs the docs' blocks read ===

def write_squad(folder, train_questions=48, dev_questions=24):
    """`train-v1.1.json` (the first SQuAD v1.1 dev paragraphs holding `train_questions`) and
    `dev-v1.1.json` (the last two paragraphs of the first ones holding `dev_questions`)."""
    folder = pathlib.Path(folder)
    (folder / "train-v1.1.json").write_text(json.dumps(first_dev_questions(train_questions)))
    dev = first_dev_questions(dev_questions)
    dev["data"][0]["paragraphs"] = dev["data"][0]["paragraphs"][-2:]
    (folder / "dev-v1.1.json").write_text(json.dumps(dev))


def sst2_rows(split, count):
    """The header and the first `count` rows of GLUE SST-2's `train` or `dev` file."""
    path = shared_data_dir() / "glue" / "SST-2" / {"train": "train.tsv.gz", "dev": "dev.tsv"}[split]
    with (gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz"
          else open(path, encoding="utf-8")) as f:
        return [next(f) for _ in range(count + 1)]
