"""The masking lab end to end at toy scale: every stage runs, resumes, and reports."""

import gzip
import json
import os
import subprocess
import sys

import pytest

from tests.data_paths import shared_data_dir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def cli(module, *args):
    """`python -m keras_bert.cli.<module>`; the lab's first call runs a dozen CLIs of its own, so
    its limit is longer than a single CLI's (on a loaded 2-core machine it ran past 300 s)."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.run([sys.executable, "-m", f"keras_bert.cli.{module}", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.large
def test_see_itself_experiment_end_to_end_and_resume(tmp_path):
    data = shared_data_dir()
    book = gzip.open(data / "text" / "gutenberg" / "Austen_Emma.txt.gz", "rt").read()
    chapters = ["CHAPTER" + c for c in book.split("CHAPTER")[1:9]]
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(4):  # file 0 trains, file 1 is held out; two chapters (documents) each
        with gzip.open(corpus / f"book{i}.txt.gz", "wt") as f:
            f.write("\n\n".join(chapters[2 * i : 2 * i + 2]))
    # SST-2 with its train file and the first 64 of its 872 dev sentences: each fine-tuning
    # scores a dev set all the same, on less data.
    glue = tmp_path / "glue" / "SST-2"
    glue.mkdir(parents=True)
    (glue / "train.tsv.gz").symlink_to(data / "glue" / "SST-2" / "train.tsv.gz")
    dev = (data / "glue" / "SST-2" / "dev.tsv").read_text().splitlines(keepends=True)
    (glue / "dev.tsv").write_text("".join(dev[:1 + 64]))
    report = tmp_path / "docs" / "lab.md"
    args = [f"--output_dir={tmp_path / 'lab'}", f"--report={report}", f"--corpus={corpus}/*.txt.gz",
            "--experiment=see_itself", "--train_files=1", "--analysis_files=1", "--vocab_size=400",
            "--max_seq_length=32", "--num_train_steps=2", "--seeds=0", "--tasks=sst-2",
            "--finetune_examples=32", "--finetune_epochs=1", "--analysis_sentences=30",
            f"--glue_dir={glue.parent}"]
    done = cli("masking_lab", *args)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    lab = tmp_path / "lab"
    for variant in ("random_init", "causal_lm", "see_itself", "see_itself_1layer"):
        analysis = json.loads((lab / "analysis" / f"{variant}_seed0.json").read_text())
        assert analysis["cka_to_input"][0] == pytest.approx(1.0)
    assert len(json.loads((lab / "analysis" / "see_itself_1layer_seed0.json").read_text())["cka_to_input"]) == 2
    assert json.loads((lab / "runs" / "see_itself_seed0" / "pretraining_objective.json").read_text())[
        "attention_pattern"] == "hide_next"
    # Fine-tuned: every variant but the 1-layer control.
    assert json.loads((lab / "finetune" / "see_itself_seed0_sst-2" / "eval_results.json").read_text())[
        "num_examples"] == 64
    assert not (lab / "finetune" / "see_itself_1layer_seed0_sst-2").exists()
    text = report.read_text()
    assert "## Experiment `see_itself`" in text and "Held-out next-token accuracy" in text
    assert (report.parent / "images" / "masking_lab" / "layers_see_itself.png").exists()

    # Re-running finds everything done: no stage runs again.
    again = cli("masking_lab", *args)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "$ " not in again.stdout and "Analysing" not in again.stdout

    # Bad input: an unknown experiment is named with the known ones.
    bad = cli("masking_lab", *args[:2], "--experiment=colour")
    assert bad.returncode != 0 and "Unknown experiment(s) ['colour']" in bad.stderr
