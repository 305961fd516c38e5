"""experiments/plot_pretraining_log.py: chained logs' token positions, by hand on two tiny logs."""

import json
import subprocess
import sys

from experiments import plot_pretraining_log


def _log(path, rows):
    path.write_text("".join(json.dumps(dict(step=s, mlm_loss=l, mlm_accuracy=a)) + "\n"
                            for s, l, a in rows))


def test_a_continuation_starts_where_the_run_ended_and_a_resumed_step_keeps_its_last_line(tmp_path):
    _log(tmp_path / "a.jsonl", [(10, 9.0, 0.1), (20, 8.0, 0.2)])
    # The continuation counts from 0 again; step 20 was logged, then resumed from step 10 and
    # logged again: the second line is the one training went on from.
    _log(tmp_path / "b.jsonl", [(10, 7.0, 0.3), (20, 6.9, 0.31), (20, 6.5, 0.35), (30, 6.0, 0.4)])
    curves = plot_pretraining_log.chained([tmp_path / "a.jsonl", tmp_path / "b.jsonl"], 100)
    assert curves == [[(1000, 9.0, 0.1), (2000, 8.0, 0.2)],
                      [(3000, 7.0, 0.3), (4000, 6.5, 0.35), (5000, 6.0, 0.4)]]


def test_it_writes_a_png_and_refuses_no_logs_in_one_line(tmp_path):
    _log(tmp_path / "a.jsonl", [(10, 9.0, 0.1), (20, 8.0, 0.2)])
    out = tmp_path / "curves.png"
    done = subprocess.run([sys.executable, "-m", "experiments.plot_pretraining_log",
                           f"--log={tmp_path / 'a.jsonl'}", f"--output={out}"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    done = subprocess.run([sys.executable, "-m", "experiments.plot_pretraining_log",
                           f"--output={out}"], capture_output=True, text=True)
    assert done.returncode != 0 and "give one or more --log files" in done.stderr
    assert "Traceback" not in done.stderr
