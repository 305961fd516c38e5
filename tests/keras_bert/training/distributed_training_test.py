"""Distributed correctness: mirrored (2 logical CPUs) and 2 loopback workers equal one device."""

import json
import os
import random
import socket
import subprocess
import sys

import numpy as np
import pytest

from keras_bert.data.pretraining.masking import MaskingPolicy
from keras_bert.data.pretraining.masking import TokenMasker
from keras_bert.data.pretraining.instances import create_training_instances
from keras_bert.data.pretraining.records import write_pretraining_records
from tests.keras_bert.training import train_worker

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"w{i}" for i in range(35)]


def write_records(path, seed=0, max_seq_length=train_worker.SEQ, max_predictions=train_worker.PREDICTIONS):
    rng = random.Random(seed)
    documents = [
        [[rng.randrange(5, 40) for _ in range(rng.randint(2, 6))] for _ in range(8)]
        for _ in range(6)
    ]
    instances = create_training_instances(
        documents, TokenMasker(VOCAB, MaskingPolicy(max_predictions_per_seq=max_predictions)),
        cls_token_id=2, sep_token_id=3, max_seq_length=max_seq_length, dupe_factor=4, rng=rng,
    )
    write_pretraining_records(instances, [path], max_seq_length, max_predictions)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(tmp_path, name, *args, env=None):
    out = str(tmp_path / f"{name}.npz")
    command = [
        sys.executable, "-m", "tests.keras_bert.training.train_worker",
        f"--records={tmp_path / 'data.tfrecord'}", f"--out={out}",
        f"--output_dir={tmp_path / name}", *args,
    ]
    extra, env = env or {}, dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    env.pop("TF_CONFIG", None)
    env.update(extra)
    return out, subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def result(out, process):
    log, _ = process.communicate(timeout=300)
    assert process.returncode == 0, log[-3000:]
    weights = np.load(out)
    with open(out + ".json") as f:
        info = json.load(f)
    return [weights[f"arr_{i}"] for i in range(len(weights.files))], info


def assert_same(a, b, atol):
    assert len(a) == len(b)
    worst = max(float(np.max(np.abs(x - y))) for x, y in zip(a, b))
    assert worst <= atol, f"weights differ by up to {worst}"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("distributed")
    write_records(str(tmp_path / "data.tfrecord"))
    weights, info = result(*launch(tmp_path, "one_device", "--strategy=one_device"))
    return tmp_path, weights, info


@pytest.mark.large
def test_training_moves_the_weights(reference):
    tmp_path, weights, info = reference
    # Sanity for the comparisons below: 3 steps change the starting weights a lot.
    rng = np.random.default_rng(0)
    start = [rng.normal(0.0, 0.3, w.shape).astype(w.dtype) for w in weights]
    assert max(float(np.max(np.abs(w - s))) for w, s in zip(weights, start)) > 1e-2
    assert len(info["losses"]) == 3 and all(np.isfinite(info["losses"]))


@pytest.mark.large
def test_mirrored_on_two_devices_equals_one_device(reference):
    tmp_path, expected, info = reference
    weights, mirrored = result(
        *launch(tmp_path, "mirrored", "--strategy=mirrored", "--num_cpu_devices=2")
    )
    assert mirrored["replicas"] == 2
    assert mirrored["local_copies"] == 2 and mirrored["replica_max_diff"] == 0.0  # same on every replica
    np.testing.assert_allclose(mirrored["losses"], info["losses"], rtol=1e-5)
    assert_same(weights, expected, atol=1e-5)


@pytest.mark.large
def test_gradient_accumulation_equals_one_big_batch(reference):
    tmp_path, expected, info = reference
    weights, accumulated = result(
        *launch(tmp_path, "accumulated", "--strategy=one_device", "--accumulation=2")
    )
    np.testing.assert_allclose(accumulated["losses"], info["losses"], rtol=1e-5)
    assert_same(weights, expected, atol=1e-5)


@pytest.mark.large
def test_two_loopback_workers_equal_one_device_and_each_other(reference):
    tmp_path, expected, info = reference
    ports = [free_port(), free_port()]
    cluster = {"worker": [f"127.0.0.1:{p}" for p in ports]}
    launched = [
        launch(
            tmp_path, f"worker{i}", "--strategy=multi_worker_mirrored",
            env={"TF_CONFIG": json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i}})},
        )
        for i in range(2)
    ]
    (w0, i0), (w1, i1) = [result(*item) for item in launched]
    assert i0["replicas"] == i1["replicas"] == 2
    assert_same(w0, w1, atol=0.0)  # identical on every worker
    np.testing.assert_allclose(i0["losses"], info["losses"], rtol=1e-5)
    assert_same(w0, expected, atol=1e-5)
