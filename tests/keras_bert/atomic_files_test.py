"""`keras_bert.atomic_files`: a file appears whole or not at all, whatever stops the writer."""

import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from keras_bert.atomic_files import atomic_open
from keras_bert.atomic_files import atomic_paths
from tests.data_paths import shared_data_dir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_an_error_inside_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "results.json"
    path.write_text("old")
    with pytest.raises(RuntimeError, match="half-way"):
        with atomic_open(path) as f:
            f.write("new, partial")
            raise RuntimeError("stopped half-way")
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["results.json"]
    with atomic_open(path, "wb") as f:
        f.write(b"new")
    assert path.read_bytes() == b"new" and os.listdir(tmp_path) == ["results.json"]
    for mode in ("r", "a", "r+"):
        with pytest.raises(ValueError, match=re.escape(f"mode '{mode}' must be 'w' or 'wb'")):
            with atomic_open(path, mode):
                pass
    assert path.read_bytes() == b"new"


def _child(tmp_path, body):
    """Runs `body` (Python) in a fresh interpreter with `path` bound to tmp_path/out.txt."""
    code = textwrap.dedent(f"""
        import os, resource, signal
        from keras_bert.atomic_files import atomic_open
        path = {str(tmp_path / 'out.txt')!r}
    """) + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def test_a_kill_mid_write_leaves_the_previous_file(tmp_path):
    (tmp_path / "out.txt").write_text("previous, complete\n")
    done = _child(tmp_path, """
        with atomic_open(path) as f:
            f.write("x" * 100000)
            f.flush()
            os.kill(os.getpid(), signal.SIGKILL)
    """)
    assert done.returncode == -signal.SIGKILL
    assert (tmp_path / "out.txt").read_text() == "previous, complete\n"


def test_a_full_disk_is_an_error_and_leaves_the_previous_file(tmp_path):
    # RLIMIT_FSIZE stands in for a full disk: a write past 4 KB fails with EFBIG.
    (tmp_path / "out.txt").write_text("previous, complete\n")
    done = _child(tmp_path, """
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        try:
            with atomic_open(path) as f:
                for _ in range(100):
                    f.write("y" * 1000)
        except OSError as e:
            print("error:", e.strerror)
    """)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("error: File too large"), done.stdout
    assert (tmp_path / "out.txt").read_text() == "previous, complete\n"
    assert os.listdir(tmp_path) == ["out.txt"]  # the partial temporary file is gone


def test_shards_are_renamed_together_or_not_at_all(tmp_path):
    import tensorflow as tf

    paths = [str(tmp_path / f"shard-{i}.tfrecord") for i in range(2)]
    with pytest.raises(KeyboardInterrupt):
        with atomic_paths(paths) as temporary:
            with tf.io.TFRecordWriter(temporary[0]) as writer:
                writer.write(b"first")
            raise KeyboardInterrupt
    assert os.listdir(tmp_path) == []
    with atomic_paths(paths) as temporary:
        for path in temporary:
            with tf.io.TFRecordWriter(path) as writer:
                writer.write(path.encode())
    assert sorted(os.listdir(tmp_path)) == ["shard-0.tfrecord", "shard-1.tfrecord"]
    assert [list(tf.data.TFRecordDataset(p).as_numpy_iterator()) for p in paths] == [
        [t.encode()] for t in temporary]


@pytest.mark.large
def test_create_pretraining_data_killed_mid_write_then_rerun(tmp_path):
    """SIGKILL while a real run writes its records, then at a random moment: the output is
    absent or complete, never partial, and a rerun writes the same records as an uninterrupted
    run. (Records, not bytes:
    protobuf writes a tf.train.Example's feature map in an order that varies between
    processes.)"""
    import numpy as np

    from keras_bert.data.pretraining.records import read_records

    def records(path):
        return read_records(str(path), 64, 10)

    def assert_same(path, reference):
        got, want = records(path), records(reference)
        assert sorted(got) == sorted(want)
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=name)

    import gzip

    book = tmp_path / "emma.txt"
    with gzip.open(shared_data_dir() / "text" / "gutenberg" / "Austen_Emma.txt.gz", "rt") as f:
        book.write_text(f.read())
    args = [sys.executable, "-m", "keras_bert.cli.create_pretraining_data",
            f"--input_file={book}",
            f"--vocab_file={shared_data_dir() / 'vocab' / 'bert-base-uncased-vocab.txt'}",
            "--max_seq_length=64", "--max_predictions_per_seq=10", "--dupe_factor=2",
            "--random_seed=5"]
    whole = tmp_path / "whole.tfrecord"
    done = subprocess.run(args + [f"--output_file={whole}"], capture_output=True, text=True,
                          cwd=ROOT, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    killed = tmp_path / "killed.tfrecord"
    def writing():  # some bytes of the records are on disk, under any name
        return any(p.name.startswith("killed.tfrecord") and p.stat().st_size > 0
                   for p in tmp_path.iterdir())

    rng = random.Random(0)
    for when in ("mid-write", rng.uniform(2.0, 12.0)):
        run = subprocess.Popen(args + [f"--output_file={killed}"], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if when == "mid-write":
            deadline = time.monotonic() + 300
            while not writing() and run.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
            assert run.poll() is None, "the run ended before it was caught writing"
        else:
            time.sleep(when)
        run.send_signal(signal.SIGKILL)
        run.wait()
        # Absent (killed before the rename) or whole (killed after it): never a part; a
        # partial TFRecord file would fail to read (truncated record) or hold fewer rows.
        if killed.exists():
            assert_same(killed, whole)
    rerun = subprocess.run(args + [f"--output_file={killed}"], capture_output=True, text=True,
                           cwd=ROOT, timeout=900)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert_same(killed, whole)
