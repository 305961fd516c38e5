"""Resume: a run killed with SIGKILL after a checkpoint, restarted, ends where an uninterrupted run ends."""

import dataclasses
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.models.bert_config import BertConfig
from tests.keras_bert.training import train_worker
from tests.keras_bert.training.distributed_training_test import ROOT, write_records

STEPS = 8


def command(tmp_path, output_dir, **overrides):
    flags = dict(
        input_file=tmp_path / "data.tfrecord",
        bert_config_file=tmp_path / "bert_config.json",
        output_dir=output_dir,
        max_seq_length=train_worker.SEQ,
        max_predictions_per_seq=train_worker.PREDICTIONS,
        train_batch_size=4,
        num_train_steps=STEPS,
        num_warmup_steps=2,
        learning_rate=1e-2,
        save_checkpoints_steps=2,
        iterations_per_loop=1,
        random_seed=3,
    )
    flags.update(overrides)
    return [sys.executable, "-m", "keras_bert.cli.run_pretraining"] + [
        f"--{k}={v}" for k, v in flags.items()
    ]


def run(args):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done


def final_weights(output_dir):
    reader = tf.train.load_checkpoint(os.path.join(output_dir, "bert_model.ckpt"))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("resume")
    write_records(str(tmp_path / "data.tfrecord"))
    # Dropout stays on (0.1): its random state must resume too.
    config = dataclasses.replace(
        BertConfig.from_dict({**train_worker.CONFIG, "hidden_dropout_prob": 0.1,
                              "attention_probs_dropout_prob": 0.1}),
    )
    config.to_json_file(tmp_path / "bert_config.json")
    return tmp_path


@pytest.mark.large
def test_sigkill_and_restart_ends_with_the_uninterrupted_weights(setup):
    tmp_path = setup
    run(command(tmp_path, tmp_path / "straight"))
    expected = final_weights(tmp_path / "straight")

    killed_dir = tmp_path / "killed"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    process = subprocess.Popen(
        command(tmp_path, killed_dir), cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 240
    while not (killed_dir / "ckpt-4.index").exists():
        assert process.poll() is None, "the run ended before it could be killed"
        assert time.time() < deadline, "no checkpoint appeared"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not (killed_dir / "bert_model.ckpt.index").exists(), "killed too late to test resume"

    resumed = run(command(tmp_path, killed_dir))
    assert "resuming from" in resumed.stdout
    got = final_weights(killed_dir)
    assert sorted(got) == sorted(expected)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], atol=1e-6, err_msg=name)
    # And the weights did train after the restart: the word embeddings differ from step 4's.
    step4 = tf.train.load_checkpoint(str(killed_dir / "ckpt-4"))
    final_embeddings = expected["bert/embeddings/word_embeddings"]
    at_step4 = [
        step4.get_tensor(name) for name, shape in step4.get_variable_to_shape_map().items()
        if "optimizer" not in name.lower() and list(shape) == list(final_embeddings.shape)
    ]
    assert len(at_step4) == 1, "expected one word-embedding table in ckpt-4"
    assert np.abs(at_step4[0] - final_embeddings).max() > 1e-4


@pytest.mark.large
def test_phase_two_at_a_longer_length_starts_from_phase_one(setup):
    tmp_path = setup
    phase1 = tmp_path / "straight"
    if not (phase1 / "bert_model.ckpt.index").exists():
        run(command(tmp_path, phase1))
    records = tmp_path / "long.tfrecord"
    write_records(str(records), seed=1, max_seq_length=16, max_predictions=5)
    # A zero learning rate leaves phase two exactly where it started (AdamW's decay scales
    # with the rate too): every tensor must then be phase one's.
    done = run(command(
        tmp_path, tmp_path / "phase2", input_file=records, max_seq_length=16,
        max_predictions_per_seq=5, num_train_steps=2, init_checkpoint=phase1, learning_rate=0.0,
    ))
    assert "Initialized from keras_bert checkpoint" in done.stdout
    phase2 = final_weights(tmp_path / "phase2")
    start = final_weights(phase1)
    assert sorted(phase2) == sorted(start)
    for name, value in start.items():
        np.testing.assert_array_equal(phase2[name], value, err_msg=name)
