"""experiments/accuracy_by_length.py: per-bin accuracy of a classifier's dev predictions, checked
on four sentences whose bins and correctness are known by construction."""

import subprocess
import sys

from experiments import accuracy_by_length


def _run_folder(folder, dev, correct):
    folder.mkdir()
    lines = ["source\tlabel\tprediction\tp_0\tp_1"]
    for line, ok in enumerate(correct, start=2):  # line 1 is the header
        lines.append(f"{dev}:{line}\t1\t{1 if ok else 0}\t0.5\t0.5")
    (folder / "eval_predictions.tsv").write_text("\n".join(lines) + "\n")


def test_bins_and_means_over_runs(tmp_path):
    dev = tmp_path / "dev.tsv"
    words = [3, 12, 25, 40]
    dev.write_text("sentence\tlabel\n" + "".join(" ".join(["w"] * n) + "\t1\n" for n in words))
    _run_folder(tmp_path / "a", dev, [True, True, False, False])
    _run_folder(tmp_path / "b", dev, [True, False, True, False])
    runs = [accuracy_by_length.run_rows(str(tmp_path / name)) for name in ("a", "b")]
    assert [w for w, _ in runs[0]] == words
    table = accuracy_by_length.by_length(runs, [10, 20, 30])
    assert table == [("0-9", 1, 100.0), ("10-19", 1, 50.0), ("20-29", 1, 50.0), ("30+", 1, 0.0)]


def test_an_arm_matching_nothing_is_a_one_line_error(tmp_path):
    done = subprocess.run([sys.executable, "-m", "experiments.accuracy_by_length",
                           f"--arm=pretrained:{tmp_path}/none*"], capture_output=True, text=True)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "give name:glob matching run folders" in done.stderr
