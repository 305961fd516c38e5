"""Every runnable README.md block runs as written (tests/doc_blocks.py has the convention).

The Quickstart's block is run by `make test-wheel` (tools/wheel_check.py), from the built wheel in
a fresh virtualenv. The others run here, each in a fresh process, in a folder holding small
slices of the files they name (SQuAD train/dev, SST-2, MRPC, CoNLL-2003) and the repository's
apps/models, as a user would run them. Blocks that do not run say why, and are counted.
"""

import collections
import gzip
import json
import pathlib
import re

import pytest

from tests import doc_blocks
from tests.data_paths import shared_data_dir

ROOT = doc_blocks.ROOT
README = ROOT / "README.md"

# The sections whose blocks run, and how many each has: a new runnable block needs a test.
RUN_BY_THE_WHEEL_TEST = {"Quickstart": 1}
RUN_HERE = {"Using it": 1, "Fine-tuning and answering from Python": 4, "Fine-tuning and features": 1}
# The blocks marked `<!-- not run: ... -->`, by section.
NOT_RUN = ["Two commands", "Two installs: with TensorFlow, or the core on JAX / PyTorch",
           "Pretraining your own BERT", "The masking lab: test BERT's design claims on your own text",
           "Export: TF Serving and phones"]


def readme_blocks(section=None):
    """The runnable blocks of README.md (of one section)."""
    return [b for b in doc_blocks.blocks(README) if b.runs and section in (None, b.section)]


def test_every_block_runs_here_or_in_the_wheel_test_or_says_why_not():
    blocks = doc_blocks.blocks(README)
    assert all(b.language for b in blocks), "a ``` fence without a language: use ```text"
    counts = collections.Counter(b.section for b in blocks if b.runs)
    assert counts == {**RUN_BY_THE_WHEEL_TEST, **RUN_HERE}, (
        "README.md's runnable blocks changed: run the new one in tests/readme_test.py, or mark "
        "it `<!-- not run: why -->` and add it to NOT_RUN")
    assert [b.section for b in blocks if b.not_run] == NOT_RUN
    assert all(b.language == "text" for b in blocks if not b.runs and not b.not_run)


def test_the_quickstart_is_one_short_block_with_no_repository_files():
    (block,) = readme_blocks("Quickstart")
    assert block.language == "python" and len(block.code.splitlines()) <= 15
    assert not re.search(r"shared|apps/|\.\./|runs/", block.code)


@pytest.mark.large
def test_using_it_block_builds_every_model_from_every_source(tmp_path):
    (block,) = readme_blocks("Using it")
    assert len(block.code.splitlines()) <= 40
    done = doc_blocks.run(block, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    # MiniLM's pooled output, the span head's logits and the tied masked-LM head's, at 1 [MASK].
    assert done.stdout.strip().splitlines()[-1] == "(1, 384) (1, 128) (1, 1, 30522)"


# === "Fine-tuning and answering from Python" ===

@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A folder with the files the blocks name, cut small (tests/doc_blocks.py says why): 16
    SQuAD questions to train on (one batch of the block's 16) and 8 to score; 32 SST-2
    sentences (one batch of 32) of at most 16 WordPieces and 32 dev ones."""
    work = tmp_path_factory.mktemp("readme")
    doc_blocks.write_squad(work, train_questions=16, dev_questions=8)
    (work / "SST-2").mkdir()
    (work / "SST-2" / "train.tsv").write_text("".join(doc_blocks.sst2_rows("train", 32, 16)))
    (work / "SST-2" / "dev.tsv").write_text("".join(doc_blocks.sst2_rows("dev", 32, 16)))
    (work / "apps").mkdir()
    (work / "apps" / "models").symlink_to(ROOT / "apps" / "models")
    (work / "apps" / "web" / "data").mkdir(parents=True)
    (work / "apps" / "web" / "data" / "articles.json").symlink_to(
        ROOT / "apps" / "web" / "data" / "articles.json")
    return work


def python_blocks():
    return readme_blocks("Fine-tuning and answering from Python")


def test_there_are_four_python_blocks_of_at_most_25_lines():
    blocks = python_blocks()
    assert len(blocks) == 4 and all(b.language == "python" for b in blocks)
    assert all(len(block.code.strip().splitlines()) <= 25 for block in blocks)


@pytest.mark.large
def test_squad_block_fine_tunes_and_scores(workdir):
    done = doc_blocks.run(python_blocks()[0], workdir)
    assert done.returncode == 0, done.stderr[-3000:]
    exact_match, f1 = map(float, done.stdout.strip().splitlines()[-1].split())
    assert 0 <= exact_match <= f1 <= 100
    results = json.loads((workdir / "runs" / "squad" / "best" / "metrics.json").read_text())
    assert results["f1"] == pytest.approx(f1)
    assert (workdir / "runs" / "squad" / "best" / "vocab.txt").exists()


@pytest.mark.large
def test_sst2_block_fine_tunes_and_predicts_labels(workdir):
    done = doc_blocks.run(python_blocks()[1], workdir)
    assert done.returncode == 0, done.stderr[-3000:]
    accuracy_line, labels_line = done.stdout.strip().splitlines()[-2:]
    assert 0.0 <= float(accuracy_line) <= 1.0
    assert set(eval(labels_line)) <= {"0", "1"}  # noqa: S307 - a printed list of labels


@pytest.mark.large
def test_answering_block_answers_from_the_context(workdir):
    done = doc_blocks.run(python_blocks()[2], workdir)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()[-4:]
    # The answer, its score, and the context at its offsets: the same text.
    answer, score, span = re.fullmatch(r"(.+) (0\.\d+|1\.0) (.+)", lines[0]).groups()
    assert answer == span and "Graubünden" in answer
    # The n-best of the second question, best first; the gold answer (SQuAD-style) on top.
    ranked = [re.fullmatch(r"(.+) (0\.\d+|1\.0)", line).groups() for line in lines[1:]]
    assert ranked[0][0] == "North Sea"
    assert [float(p) for _, p in ranked] == sorted((float(p) for _, p in ranked), reverse=True)


def test_document_block_answers_from_the_whole_article_or_says_no_answer(workdir):
    """SQuAD's gold answer ("September 1944") is the oracle; the issue's example of a question
    the Rhine article does not answer must get no_answer."""
    from keras_bert.metrics.squad_evaluation import f1_v1

    done = doc_blocks.run(python_blocks()[3], workdir)
    assert done.returncode == 0, done.stderr[-3000:]
    first, second = done.stdout.strip().splitlines()[-2:]
    answer, score, passage = re.fullmatch(r"(.+) (0\.\d+|1\.0) passage (\d+)", first).groups()
    assert f1_v1(answer, "September 1944") >= 0.5 and float(score) > 0
    assert second == "True"


# === "Fine-tuning and features": the command-line tools ===

@pytest.mark.large
def test_command_line_block_trains_scores_and_extracts(tmp_path):
    """MRPC, SQuAD and CoNLL-2003 cut to one batch of 32 (3 epochs: 3 steps each, one batch
    length to compile), features of two sentences."""
    doc_blocks.write_squad(tmp_path, train_questions=32, dev_questions=8)
    (tmp_path / "glue" / "MRPC").mkdir(parents=True)
    for name, rows in (("train.tsv", 32), ("dev.tsv", 16)):
        lines = (shared_data_dir() / "glue" / "MRPC" / name).read_text(encoding="utf-8-sig")
        (tmp_path / "glue" / "MRPC" / name).write_text("".join(lines.splitlines(True)[: rows + 1]))
    (tmp_path / "conll2003").mkdir()
    # train: 34 blocks after the first -DOCSTART- line, two more of which are -DOCSTART-s: 32
    # sentences, one batch.
    for split, sentences in (("train", 34), ("valid", 16), ("test", 16)):
        with gzip.open(shared_data_dir() / "conll2003" / f"{split}.txt.gz", "rt") as f:
            text = f.read().split("\n\n")  # the -DOCSTART- line, then one sentence each
        (tmp_path / "conll2003" / f"{split}.txt").write_text("\n\n".join(text[: sentences + 1]) + "\n")
    sentences = ["Hamlet was written by Shakespeare.", "The Rhine flows into the North Sea."]
    (tmp_path / "in.txt").write_text("\n".join(sentences) + "\n")

    (block,) = readme_blocks("Fine-tuning and features")
    done = doc_blocks.run(block, tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    runs = tmp_path / "runs"
    mrpc = json.loads((runs / "mrpc" / "eval_results.json").read_text())
    assert 0 <= mrpc["f1"] <= 1 and 0 <= mrpc["accuracy"] <= 1
    squad = json.loads((runs / "squad" / "eval_results.json").read_text())
    assert 0 <= squad["exact_match"] <= squad["f1"] <= 100
    dev = json.loads((tmp_path / "dev-v1.1.json").read_text())
    ids = {q["id"] for p in dev["data"][0]["paragraphs"] for q in p["qas"]}
    assert set(json.loads((runs / "squad" / "predictions.json").read_text())) == ids
    for name in ("eval_results.json", "test_results.json"):
        assert 0 <= json.loads((runs / "ner" / name).read_text())["f1"] <= 100
    features = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len(features) == len(sentences)
    assert [layer["index"] for layer in features[0]["features"][0]["layers"]] == [-1, -2, -3, -4]
    assert len(features[0]["features"][0]["layers"][0]["values"]) == 384  # MiniLM's width
