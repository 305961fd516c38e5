"""Fault injection (issue 31): SIGKILL at random moments, and a full disk, during fine-tuning,
pretraining, export and fixture generation. After every fault the outputs are either the
previous ones, intact, or complete; and running the same command again finishes with what an
uninterrupted run produces (the oracle: that run, in its own folder).

Kill moments are drawn uniformly over the uninterrupted run's own duration (seeded; the seed
and moments are printed). `KERAS_BERT_FAULTS` sets the kills per stage (1 unless set; `make
test-reliability` uses 1). A full disk is `RLIMIT_FSIZE` in the child with SIGXFSZ ignored, so a
write fails with EFBIG as it would with ENOSPC; the command must then say so in one line.
"""

import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import tensorflow as tf

from keras_bert import integrity
from keras_bert.checkpoints.tf1_checkpoint import save_tf1_checkpoint
from keras_bert.models.bert_config import BertConfig
from keras_bert.models.bert_encoder import BertEncoder
from tests.data_paths import shared_data_dir
from tests.keras_bert.training import train_worker
from tests.keras_bert.training.distributed_training_test import write_records

pytestmark = [pytest.mark.reliability, pytest.mark.fault_injection, pytest.mark.large]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KILLS = int(os.environ.get("KERAS_BERT_FAULTS", "1"))
ENV = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")


def _disk_limit(limit_bytes):
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
    return limit


def run(args, cwd=ROOT, disk_limit=None, env=ENV):
    """Runs to the end; returns (returncode, seconds, stdout, stderr)."""
    began = time.monotonic()
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900,
                          preexec_fn=_disk_limit(disk_limit) if disk_limit else None)
    return done.returncode, time.monotonic() - began, done.stdout, done.stderr


def kill_after(args, seconds, cwd=ROOT, env=ENV):
    """Starts `args` and SIGKILLs it after `seconds`; returns whether it was still running."""
    process = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        process.wait(timeout=seconds)
        return False
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGKILL)
        process.wait()
        return True


def inject(args, straight_seconds, check_after_fault, seed, cwd=ROOT, disk_limit=None, env=ENV):
    """KILLS random SIGKILLs (and a full disk if `disk_limit`), `check_after_fault()` after each,
    then the run to its end. Returns the kill moments."""
    rng = random.Random(seed)
    # Past the first 40% (mostly interpreter and TensorFlow start-up) to the end.
    moments = sorted(round(rng.uniform(0.4, 1.0) * straight_seconds, 2) for _ in range(KILLS))
    print(f"seed {seed}: SIGKILL after {moments} s (uninterrupted: {straight_seconds:.1f} s)")
    if disk_limit:
        # First, while everything is still to be written: the limit is below the size of a file
        # the run writes, so the run must hit it. (After the kills the run may have finished
        # training already, and a finished run writes only small files.)
        code, _, _, stderr = run(args, cwd, disk_limit=disk_limit, env=env)
        assert code == 1, stderr[-3000:]
        last = stderr.strip().splitlines()[-1]
        assert "the disk is full (or a file-size limit was reached)" in last, stderr[-3000:]
        assert "Traceback" not in stderr, stderr[-3000:]
        print(f"disk limit {disk_limit:,} bytes: {last[:160]}")
        check_after_fault()
    for moment in moments:
        kill_after(args, moment, cwd, env)
        check_after_fault()
    code, _, stdout, stderr = run(args, cwd, env=env)
    assert code == 0, stdout[-2000:] + stderr[-3000:]
    return moments


def complete_json_or_absent(*paths):
    for path in paths:
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                json.load(f)  # a half-written file would not parse


def no_temporary_files(folder):
    leftovers = [os.path.join(r, f) for r, _, fs in os.walk(folder) for f in fs
                 if ".tmp" in f and "_temp" not in r]
    assert leftovers == [], leftovers


# === Fine-tuning ===

@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny_bert")
    encoder = BertEncoder.from_bert_config(BertConfig.from_dict({
        "vocab_size": 30522, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
        "intermediate_size": 32, "max_position_embeddings": 64}))
    save_tf1_checkpoint(encoder, str(folder / "bert_model.ckpt"))
    shutil.copy(shared_data_dir() / "vocab" / "bert-base-uncased-vocab.txt", folder / "vocab.txt")
    data = tmp_path_factory.mktemp("tsv")
    lines = ["sentence\tlabel"] + [f"{w} film number {i}\t{l}" for i, (w, l) in
                                   enumerate([("good", "1"), ("bad", "0")] * 96)]
    (data / "train.tsv").write_text("\n".join(lines) + "\n")
    (data / "dev.tsv").write_text("\n".join(lines[:41]) + "\n")
    return folder, data


def classifier(tiny, output_dir):
    model, data = tiny
    return [sys.executable, "-m", "keras_bert.cli.run_classifier", "--task_name=sst-2",
            f"--data_dir={data}", f"--init_checkpoint={model}", "--do_train", "--do_eval",
            "--num_train_epochs=4", "--train_batch_size=8", "--max_seq_length=16",
            "--iterations_per_loop=8", "--eval_every_steps=16", f"--output_dir={output_dir}"]


@pytest.fixture(scope="module")
def straight_finetuning(tiny_bert, tmp_path_factory):
    out = tmp_path_factory.mktemp("finetune") / "straight"
    code, seconds, stdout, stderr = run(classifier(tiny_bert, out))
    assert code == 0, stdout[-2000:] + stderr[-3000:]
    return out, seconds


def best_weights(folder):
    reader = tf.train.load_checkpoint(str(folder / "best" / "bert_model.ckpt"))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


def test_finetuning_killed_and_out_of_disk_resumes_to_the_same_model(
        tiny_bert, straight_finetuning, tmp_path):
    straight, seconds = straight_finetuning
    out = tmp_path / "faulty"

    def check():
        complete_json_or_absent(out / "eval_results.json", out / "best" / "metrics.json")
        no_temporary_files(out)

    inject(classifier(tiny_bert, out), seconds, check, seed=11, disk_limit=1_500_000)
    assert json.loads((out / "eval_results.json").read_text()) == json.loads(
        (straight / "eval_results.json").read_text())
    history = [json.loads(line) for line in (out / "eval_history.jsonl").read_text().splitlines()]
    expected = [json.loads(line) for line in
                (straight / "eval_history.jsonl").read_text().splitlines()]
    drop = lambda rows: [{k: v for k, v in r.items() if k != "eval_seconds"} for r in rows]
    assert drop(history) == drop(expected)  # each evaluation once, with the same numbers
    got, want = best_weights(out), best_weights(straight)
    assert sorted(got) == sorted(want)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


# === Pretraining ===

def pretraining(folder, output_dir):
    return [sys.executable, "-m", "keras_bert.cli.run_pretraining",
            f"--input_file={folder / 'data.tfrecord'}",
            f"--bert_config_file={folder / 'bert_config.json'}", f"--output_dir={output_dir}",
            f"--max_seq_length={train_worker.SEQ}",
            f"--max_predictions_per_seq={train_worker.PREDICTIONS}", "--train_batch_size=4",
            "--num_train_steps=40", "--num_warmup_steps=2", "--learning_rate=1e-2",
            "--save_checkpoints_steps=2", "--iterations_per_loop=1", "--random_seed=3"]


def final_weights(output_dir):
    reader = tf.train.load_checkpoint(str(output_dir / "bert_model.ckpt"))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


def test_pretraining_killed_and_out_of_disk_resumes_to_the_same_weights(tmp_path):
    write_records(str(tmp_path / "data.tfrecord"))
    # A vocabulary large enough that a checkpoint (~400 KB) passes the disk limit below while
    # AutoGraph's temporary source files (a few KB) do not.
    BertConfig.from_dict({**train_worker.CONFIG, "vocab_size": 4000, "hidden_dropout_prob": 0.1,
                          "attention_probs_dropout_prob": 0.1}).to_json_file(
        tmp_path / "bert_config.json")
    code, seconds, stdout, stderr = run(pretraining(tmp_path, tmp_path / "straight"))
    assert code == 0, stdout[-2000:] + stderr[-3000:]
    out = tmp_path / "faulty"

    def check():
        complete_json_or_absent(out / "final_metrics.json")
        no_temporary_files(out)

    inject(pretraining(tmp_path, out), seconds, check, seed=12, disk_limit=100_000)
    got, want = final_weights(out), final_weights(tmp_path / "straight")
    assert sorted(got) == sorted(want)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], atol=1e-6, err_msg=name)


# === Export ===

def export(init_checkpoint, export_dir):
    return [sys.executable, "-m", "keras_bert.export.cli", "--task_name=sst-2",
            f"--init_checkpoint={init_checkpoint}", f"--export_dir={export_dir}",
            "--formats=tflite", "--quantizations=float32,float16,dynamic_int8",
            "--max_seq_length=16"]


def test_export_killed_and_out_of_disk_leaves_whole_models(straight_finetuning, tmp_path):
    straight, _ = straight_finetuning
    best = straight / "best"
    code, seconds, stdout, stderr = run(export(best, tmp_path / "straight"))
    assert code == 0, stdout[-2000:] + stderr[-3000:]
    expected = integrity.read_manifest(tmp_path / "straight" / "tflite")
    assert len(expected) >= 2
    out = tmp_path / "faulty"

    def check():
        folder = out / "tflite"
        if folder.exists():
            # Every model present is whole: it matches the manifest, and the manifest's entries
            # are those of an uninterrupted export (the conversion is deterministic).
            assert integrity.verify_files(folder) == len(integrity.read_manifest(folder) or {})
            for name, digest in (integrity.read_manifest(folder) or {}).items():
                assert expected[name] == digest, name
            assert sorted(p for p in os.listdir(folder) if p.endswith(".tflite")) == sorted(
                integrity.read_manifest(folder) or {})
        no_temporary_files(out)

    inject(export(best, out), seconds, check, seed=13, disk_limit=200_000)
    assert integrity.read_manifest(out / "tflite") == expected


# === Fixtures ===

def test_fixture_generation_killed_leaves_the_old_or_the_new_files(tmp_path):
    """`python -m apps.make_fixtures` in a copy of the apps, killed at random: each file is its
    old or its new version, and the rerun writes what an uninterrupted run writes. The oracle is
    the committed files, except the model's logits in qa_golden.json: the dynamic-int8 reader's
    kernels differ by CPU (0.26 at most between a Zen 3 and the machine that made them), so that
    file is the uninterrupted run's here (tests/apps/qa_pipeline_test holds it to the committed
    one with its tolerance)."""
    copy = tmp_path / "repo"
    shutil.copytree(os.path.join(ROOT, "apps"), copy / "apps",
                    ignore=shutil.ignore_patterns("node_modules", "build", "__pycache__", ".gradle"))
    outputs = [copy / "apps" / "fixtures" / "qa_golden.json",
               copy / "apps" / "fixtures" / "tokenizer_golden.json",
               copy / "apps" / "web" / "data" / "passages.json",
               copy / "apps" / "models" / integrity.MANIFEST]
    committed = [p.read_bytes() for p in outputs]
    for path in outputs[:3]:
        path.write_text("[]\n")  # an older version, different from what the run writes
    older = [p.read_bytes() for p in outputs]
    args = [sys.executable, "-m", "apps.make_fixtures",
            f"--squad={shared_data_dir() / 'squad' / 'dev-v1.1.json.gz'}"]
    env = dict(ENV, PYTHONPATH=str(copy))
    code, seconds, _, stderr = run(args, copy, env=env)
    assert code == 0, stderr[-3000:]
    # Names, not contents, in the failure message: pytest's diff of megabytes ran for hours.
    new = [p.read_bytes() for p in outputs]
    assert [p.name for p, n, c in zip(outputs, new, committed) if n != c and p != outputs[0]] == []

    def check():
        for path, old, whole in zip(outputs, older, new):
            assert path.read_bytes() in (old, whole), path
        no_temporary_files(copy / "apps" / "fixtures")

    for path, old in zip(outputs[:3], older):
        path.write_bytes(old)
    inject(args, seconds, check, seed=14, cwd=copy, env=env)
    assert [p.name for p, n in zip(outputs, new) if p.read_bytes() != n] == []
