"""The studies' shared pieces (experiments/cli_runs.py): a dev subset of whole articles,
run-once, the sweep table."""

import gzip
import json
import os

import pytest

from experiments import cli_runs
from tests.data_paths import shared_data_dir


def test_dev_subset_is_the_first_whole_articles_reaching_the_question_count(tmp_path):
    path = cli_runs.squad_dev_subset(str(shared_data_dir()), str(tmp_path / "dev.json"), 500)
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt") as f:
        dev = json.load(f)["data"]
    with open(path) as f:
        subset = json.load(f)["data"]
    counts = [sum(len(p["qas"]) for p in a["paragraphs"]) for a in dev]
    # Whole articles, in order, stopping at the first that reaches 500 questions.
    assert subset == dev[: len(subset)]
    assert sum(counts[: len(subset)]) >= 500 > sum(counts[: len(subset) - 1])
    # A second call reads the file that is there.
    os.utime(path, (0, 0))
    assert cli_runs.squad_dev_subset("/nonexistent", path, 500) == path


def test_run_once_reads_finished_results_and_reports_a_failed_run(tmp_path):
    done = tmp_path / "done"
    done.mkdir()
    (done / "eval_results.json").write_text('{"f1": 80.5}')
    # Finished: nothing runs (the module does not exist).
    assert cli_runs.run_once(["no_such_module"], str(done), "done run") == {"f1": 80.5}
    with pytest.raises(SystemExit, match="broken run failed .*log.txt"):
        cli_runs.run_once(["no_such_module"], str(tmp_path / "broken"), "broken run")
    assert "No module named no_such_module" in (tmp_path / "broken" / "log.txt").read_text()


def test_write_json_leaves_no_temporary_file(tmp_path):
    path = str(tmp_path / "a" / "summary.json")
    cli_runs.write_json(path, {"x": 1})
    assert json.load(open(path)) == {"x": 1}
    assert os.listdir(tmp_path / "a") == ["summary.json"]


def test_sweep_table_marks_the_best_f1():
    rows = [
        {"learning_rate": 5e-5, "warmup_proportion": 0.1, "num_train_epochs": 1.0,
         "exact_match": 60.0, "f1": 70.125},
        {"learning_rate": 1e-4, "warmup_proportion": 0.1, "num_train_epochs": 1.0,
         "exact_match": 64.0, "f1": 74.5},
    ]
    lines = cli_runs.sweep_table(rows).splitlines()
    assert lines[2] == "| 5e-05 | 0.1 | 1 | 60.00 | 70.12 |"
    assert lines[3] == "| 0.0001 | 0.1 | 1 | 64.00 | **74.50** |"

