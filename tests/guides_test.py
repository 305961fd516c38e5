"""Every block of docs/guides/*.md runs as written, in order, on small real inputs, and does what
its guide says (tests/doc_blocks.py has the convention).

fine_tuning.md and exporting.md run in one folder, in that order (the export starts from the
fine-tuning guide's `runs/squad`); pretraining.md in its own.
"""

import ast
import gzip
import json
import re

import pytest

from tests import doc_blocks
from tests.data_paths import shared_data_dir

GUIDES = doc_blocks.ROOT / "docs" / "guides"
# Each guide's runnable blocks and the sections of its blocks marked `<!-- not run: ... -->`.
RUNNABLE = {"fine_tuning.md": 3, "exporting.md": 3, "pretraining.md": 6}
NOT_RUN = {"exporting.md": ["3. What TF Serving runs: the SavedModel alone"]}


def guide_blocks(name):
    return [b for b in doc_blocks.blocks(GUIDES / name) if b.runs]


def test_every_guide_block_runs_or_says_why_not():
    assert sorted(p.name for p in GUIDES.glob("*.md")) == sorted(RUNNABLE)
    for name, count in RUNNABLE.items():
        blocks = doc_blocks.blocks(GUIDES / name)
        assert all(b.language for b in blocks), f"{name}: a ``` fence without a language"
        assert sum(b.runs for b in blocks) == count, f"{name}: a runnable block was added or removed"
        assert [b.section for b in blocks if b.not_run] == NOT_RUN.get(name, [])


# === fine_tuning.md, then exporting.md in the same folder ===

@pytest.fixture(scope="module")
def fine_tuned(tmp_path_factory):
    """The fine-tuning guide's folder after its blocks, and their outputs, on inputs cut small
    (tests/doc_blocks.py says why): 32 SST-2 sentences of at most 16 WordPieces (labels
    written as words; two batches of the guide's 16) to train on and 32 to evaluate; 32 SQuAD
    questions and 8."""
    work = tmp_path_factory.mktemp("guides")
    (work / "reviews").mkdir()
    for split, rows in (("train", 32), ("dev", 32)):
        header, *lines = doc_blocks.sst2_rows(split, rows, max_tokens=16)
        words = [re.sub(r"\t0$", "\tnegative", re.sub(r"\t1$", "\tpositive", line.rstrip("\n")))
                 for line in lines]
        (work / "reviews" / f"{split}.tsv").write_text(header + "\n".join(words) + "\n")
    doc_blocks.write_squad(work, train_questions=32, dev_questions=8)
    return work, doc_blocks.run_in_order(guide_blocks("fine_tuning.md"), work)


@pytest.mark.large
def test_fine_tuning_guide(fine_tuned):
    work, (python, cli, squad) = fine_tuned
    # 1: the Python run's labels and accuracy, and labels for the two new texts.
    labels_line, predictions_line = python.stdout.strip().splitlines()[-2:]
    found = re.fullmatch(r"labels: \('negative', 'positive'\) dev accuracy: (\S+)", labels_line)
    accuracy = float(found.group(1))
    assert 0 <= accuracy <= 1
    assert len(eval(predictions_line)) == 2  # noqa: S307 - a printed list of labels
    assert set(eval(predictions_line)) <= {"negative", "positive"}  # noqa: S307
    assert (work / "runs" / "reviews" / "best" / "vocab.txt").exists()
    # 2: the same settings from the command line give the same accuracy.
    cli_results = json.loads((work / "runs" / "reviews_cli" / "eval_results.json").read_text())
    assert cli_results["accuracy"] == pytest.approx(accuracy, abs=1e-6)
    assert json.loads(cli.stdout[cli.stdout.index("{"):])["accuracy"] == cli_results["accuracy"]
    # 3: SQuAD predictions for every dev question, scored officially.
    dev = json.loads((work / "dev-v1.1.json").read_text())
    ids = {q["id"] for p in dev["data"][0]["paragraphs"] for q in p["qas"]}
    assert set(json.loads((work / "runs" / "squad" / "predictions.json").read_text())) == ids
    scores = json.loads((work / "runs" / "squad" / "eval_results.json").read_text())
    assert 0 <= scores["exact_match"] <= scores["f1"] <= 100
    assert (work / "runs" / "squad" / "nbest_predictions.json").exists()


@pytest.mark.large
def test_exporting_guide(fine_tuned):
    work, _ = fine_tuned
    export, answers, serve_text = doc_blocks.run_in_order(guide_blocks("exporting.md"), work)
    # 1: the SavedModel, the .tflite and a verification of each against Keras.
    exports = work / "exports"
    assert (exports / "squad" / "1" / "saved_model.pb").exists()
    assert (exports / "squad" / "1" / "SHA256SUMS").exists()
    tflite = exports / "tflite" / "squad_dynamic_int8.tflite"
    assert 15e6 < tflite.stat().st_size < 35e6  # int8 weights: about a quarter of MiniLM's 91 MB
    report = json.loads((exports / "reports" / "squad" / "verification.json").read_text())
    assert "| dynamic_int8 |" in export.stdout
    assert report["serve_text"]["differences"] == [], report["serve_text"]
    # 2: one answer per model, a span of the context; the run folder and the SavedModel (the same
    # float graph) agree exactly.
    rows = [line.split(" | ") for line in answers.stdout.strip().splitlines()[-3:]]
    assert [model for _, _, model in rows] == [
        "runs/squad", "exports/squad/1", "exports/tflite/squad_dynamic_int8.tflite"]
    context = _literal_after("context = ", guide_blocks("exporting.md")[1].code)
    assert all(answer and answer in context for answer, _, _ in rows)
    assert rows[0][0] == rows[1][0]
    assert float(rows[0][1]) == pytest.approx(float(rows[1][1]), abs=2e-3)
    # 3: the serve_text signature alone: an answer and its character offset in the context.
    answer, start = serve_text.stdout.strip().splitlines()[-1].rsplit(" ", 1)
    (context,) = _literal_after("context=tf.constant(", guide_blocks("exporting.md")[2].code)
    assert answer and context[int(start):].startswith(answer)


def _literal_after(prefix, code):
    """The Python literal (strings joined as Python joins them) that follows `prefix` in `code`."""
    start = code.index(prefix) + len(prefix)
    for end in range(start + 1, len(code) + 1):
        try:
            return ast.literal_eval(code[start:end].strip())
        except (SyntaxError, ValueError):
            continue
    raise AssertionError(f"No literal after {prefix!r} in:\n{code}")


# === pretraining.md ===

@pytest.mark.large
def test_pretraining_guide(tmp_path):
    (tmp_path / "books").mkdir()
    for book, name in (("Carroll_Alice_s_Adventures_in_Wonderland", "alice"),
                       ("Wells_The_Time_Machine", "time_machine")):
        with gzip.open(shared_data_dir() / "text" / "gutenberg" / f"{book}.txt.gz", "rt",
                       encoding="utf-8") as f:
            lines = f.read().splitlines(True)[:800]
        (tmp_path / "books" / f"{name}.txt").write_text("".join(lines), encoding="utf-8")
    done = doc_blocks.run_in_order(guide_blocks("pretraining.md"), tmp_path)
    # 1: chapters as documents of sentences; a vocabulary with BERT's special tokens first.
    documents = (tmp_path / "corpus.txt").read_text().strip().split("\n\n")
    assert len(documents) >= 4 and all(document.strip() for document in documents)
    vocab = (tmp_path / "vocab.txt").read_text().split("\n")[:-1]
    assert vocab[:5] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] and len(vocab) > 200
    # 2: packed records.
    assert "packed rows" in done[1].stdout and (tmp_path / "data" / "packed.tfrecord").exists()
    # 3: the tiny size with the learned vocabulary.
    config = json.loads((tmp_path / "bert_config.json").read_text())
    assert config["vocab_size"] == len(vocab)
    assert (config["num_hidden_layers"], config["hidden_size"]) == (2, 128)
    # 4: trained until the budget was spent, the rate falling to ~0, the loss falling.
    run = tmp_path / "runs" / "bert"
    log = [json.loads(line) for line in (run / "train_log.jsonl").read_text().splitlines()]
    assert log[-1]["budget_spent"] >= 1.0 and log[-1]["lr"] < 1e-4
    assert log[-1]["loss"] < log[0]["loss"] - 0.5
    assert (run / "bert_model.ckpt.index").exists() and (run / "curves.png").stat().st_size > 0
    # 5, 6: five tokens per [MASK], likeliest first; the Hugging Face folder answers the same.
    run_answers = json.loads((tmp_path / "fill_mask.json").read_text())["answers"]
    (tokens,) = run_answers[0]["masks"]
    assert len(tokens) == 5 and all(t["token"] in vocab for t in tokens)
    probabilities = [t["probability"] for t in tokens]
    assert probabilities == sorted(probabilities, reverse=True)
    for name in ("config.json", "model.safetensors", "vocab.txt"):
        assert (tmp_path / "runs" / "bert_hf" / name).exists()
    hf_answers = json.loads((tmp_path / "fill_mask_hf.json").read_text())["answers"]
    assert [t["token"] for t in hf_answers[0]["masks"][0]] == [t["token"] for t in tokens]
    assert [t["probability"] for t in hf_answers[0]["masks"][0]] == pytest.approx(
        probabilities, abs=2e-4)
