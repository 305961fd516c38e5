"""The masking lab end to end at toy scale: every stage runs, resumes, and reports."""

import gzip
import json

import pytest

from tests.data_paths import shared_data_dir
from tests.keras_bert.cli.pretraining_cli_test import cli


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
    report = tmp_path / "docs" / "lab.md"
    args = [f"--output_dir={tmp_path / 'lab'}", f"--report={report}", f"--corpus={corpus}/*.txt.gz",
            "--experiment=see_itself", "--train_files=1", "--analysis_files=1", "--vocab_size=400",
            "--max_seq_length=32", "--num_train_steps=4", "--seeds=0", "--tasks=sst-2",
            "--finetune_examples=64", "--finetune_epochs=1", "--analysis_sentences=30",
            f"--glue_dir={data / 'glue'}"]
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
    assert (lab / "finetune" / "see_itself_seed0_sst-2" / "eval_results.json").exists()
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
