"""The README's Python blocks under "Fine-tuning and answering from Python" run as written.

Each block runs in a fresh interpreter, in a folder holding small slices of the files it names
(SQuAD train/dev, SST-2 train/dev) and the repository's apps/models, as a user would run it."""

import gzip
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from tests.data_paths import first_dev_questions, shared_data_dir

pytestmark = pytest.mark.large

ROOT = pathlib.Path(__file__).resolve().parents[1]
SECTION = "## Fine-tuning and answering from Python"


def readme_blocks():
    text = (ROOT / "README.md").read_text()
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A folder with the files the blocks name, cut small: 48 SQuAD questions to train on and
    24 to score, 160 SST-2 sentences and 64 dev ones."""
    work = tmp_path_factory.mktemp("readme")
    (work / "train-v1.1.json").write_text(json.dumps(first_dev_questions(48)))
    dev = first_dev_questions(24)
    dev["data"][0]["paragraphs"] = dev["data"][0]["paragraphs"][-2:]
    (work / "dev-v1.1.json").write_text(json.dumps(dev))
    (work / "SST-2").mkdir()
    with gzip.open(shared_data_dir() / "glue" / "SST-2" / "train.tsv.gz", "rt") as f:
        (work / "SST-2" / "train.tsv").write_text("".join(f.readlines()[:161]))
    lines = (shared_data_dir() / "glue" / "SST-2" / "dev.tsv").read_text().splitlines(True)
    (work / "SST-2" / "dev.tsv").write_text("".join(lines[:65]))
    (work / "apps").mkdir()
    (work / "apps" / "models").symlink_to(ROOT / "apps" / "models")
    return work


def run_block(code, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=1200)


def test_there_are_three_blocks_of_at_most_25_lines():
    blocks = readme_blocks()
    assert len(blocks) == 3
    assert all(len(block.strip().splitlines()) <= 25 for block in blocks)


def test_squad_block_fine_tunes_and_scores(workdir):
    done = run_block(readme_blocks()[0], workdir)
    assert done.returncode == 0, done.stderr[-3000:]
    exact_match, f1 = map(float, done.stdout.strip().splitlines()[-1].split())
    assert 0 <= exact_match <= f1 <= 100
    results = json.loads((workdir / "runs" / "squad" / "best" / "metrics.json").read_text())
    assert results["f1"] == pytest.approx(f1)
    assert (workdir / "runs" / "squad" / "best" / "vocab.txt").exists()


def test_sst2_block_fine_tunes_and_predicts_labels(workdir):
    done = run_block(readme_blocks()[1], workdir)
    assert done.returncode == 0, done.stderr[-3000:]
    accuracy_line, labels_line = done.stdout.strip().splitlines()[-2:]
    assert 0.0 <= float(accuracy_line) <= 1.0
    assert set(eval(labels_line)) <= {"0", "1"}  # noqa: S307 - a printed list of labels


def test_answering_block_answers_from_the_context(workdir):
    done = run_block(readme_blocks()[2], workdir)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()[-4:]
    # The answer, its score, and the context at its offsets: the same text.
    answer, score, span = re.fullmatch(r"(.+) (0\.\d+|1\.0) (.+)", lines[0]).groups()
    assert answer == span and "Graubünden" in answer
    # The n-best of the second question, best first; the gold answer (SQuAD-style) on top.
    ranked = [re.fullmatch(r"(.+) (0\.\d+|1\.0)", line).groups() for line in lines[1:]]
    assert ranked[0][0] == "North Sea"
    assert [float(p) for _, p in ranked] == sorted((float(p) for _, p in ranked), reverse=True)
