"""`keras_bert.training.finetune` killed with SIGKILL resumes to the weights of an uninterrupted run,
on JAX (and on the backend the suite runs on, where that is not TensorFlow)."""

import os
import subprocess
import sys

import keras
import numpy as np
import pytest

pytestmark = [pytest.mark.backend_portable, pytest.mark.large]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# The TensorFlow suite checks JAX (TensorFlow resumes through the same files in finetuner_test).
BACKEND = "jax" if keras.config.backend() == "tensorflow" else keras.config.backend()


def _worker(output_dir, *args):
    return subprocess.run(
        [sys.executable, "-m", "tests.keras_bert.training.finetune_worker", str(output_dir), *args],
        cwd=ROOT, env={**os.environ, "KERAS_BACKEND": BACKEND}, capture_output=True, text=True,
        timeout=600)


def test_a_sigkilled_run_resumes_to_the_same_weights(tmp_path):
    straight = _worker(tmp_path / "straight")
    assert straight.returncode == 0, straight.stderr[-3000:]
    killed = _worker(tmp_path / "killed", "6")  # after the step-4 checkpoint, mid second loop
    assert killed.returncode == -9, killed.stderr[-3000:]
    checkpoints = sorted(os.listdir(tmp_path / "killed" / "run" / "checkpoints"))
    assert checkpoints == ["ckpt-4.npz"] and not (tmp_path / "killed" / "final.npz").exists()
    resumed = _worker(tmp_path / "killed")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    with np.load(tmp_path / "straight" / "final.npz") as a, \
            np.load(tmp_path / "killed" / "final.npz") as b:
        assert a.files == b.files and len(a.files) > 10
        for name in a.files:
            np.testing.assert_allclose(b[name], a[name], atol=1e-6, err_msg=name)
        # Training moved the weights: the comparison is not of two untouched initializations.
        with np.load(tmp_path / "straight" / "initial.npz") as start:
            assert max(np.abs(a[n] - start[n]).max() for n in a.files) > 1e-2
