"""create_pretraining_data and run_pretraining as users run them: outputs, summaries, bad input."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from keras_bert.data.pretraining.records import read_records
from tests.keras_bert.training import train_worker
from tests.keras_bert.training.distributed_training_test import ROOT
from tests.keras_bert.training.distributed_training_test import VOCAB as RECORDS_VOCAB
from tests.keras_bert.training.distributed_training_test import write_records

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "a", "dog", "ran", ".", "##s"]
TEXT = "the cat sat on the mat .\nthe cats ran .\na dog sat .\n\na dog ran on a mat .\nthe dogs sat .\n\nthe cat ran .\n"


def cli(module, *args, env=None):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", f"keras_bert.cli.{module}", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    (tmp_path / "corpus.txt").write_text(TEXT)
    return tmp_path


@pytest.mark.large
def test_create_pretraining_data_writes_shards_and_a_summary(files):
    done = cli(
        "create_pretraining_data", f"--input_file={files / 'corpus.txt'}",
        f"--output_file={files / 'out' / 'p.tfrecord'}", "--num_output_shards=2",
        f"--vocab_file={files / 'vocab.txt'}", "--max_seq_length=16", "--max_predictions_per_seq=4",
        "--dupe_factor=5", "--do_whole_word_mask",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "IsNext" in done.stdout and "2 shard(s)" in done.stdout
    records = read_records(str(files / "out" / "p.tfrecord-00000-of-00002"), 16, 4)
    assert records["input_ids"].shape[1] == 16 and (records["input_ids"][:, 0] == 2).all()


@pytest.mark.large
@pytest.mark.parametrize(
    "problem, expected",
    [
        ("empty_input", "corpus.txt is empty"),
        ("vocab_without_mask", r"\[MASK\]"),
        ("no_match", "no file matches"),
    ],
)
def test_create_pretraining_data_bad_input(files, problem, expected):
    corpus, vocab = files / "corpus.txt", files / "vocab.txt"
    if problem == "empty_input":
        corpus.write_text("\n\n")
    if problem == "vocab_without_mask":
        vocab.write_text("\n".join(t for t in VOCAB if t != "[MASK]") + "\n")
    if problem == "no_match":
        corpus = files / "nothing*.txt"
    done = cli(
        "create_pretraining_data", f"--input_file={corpus}", f"--output_file={files / 'o.tfrecord'}",
        f"--vocab_file={vocab}", "--max_seq_length=16",
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    import re

    assert re.search(expected, done.stderr), done.stderr[-2000:]
    assert not (files / "o.tfrecord").exists()  # nothing half-written


@pytest.mark.large
def test_run_pretraining_bad_input(files):
    write_records(str(files / "d.tfrecord"))
    (files / "config.json").write_text(json.dumps(train_worker.CONFIG))
    common = [f"--input_file={files / 'd.tfrecord'}", f"--bert_config_file={files / 'config.json'}",
              "--num_train_steps=1", "--num_warmup_steps=0"]
    wrong_length = cli("run_pretraining", *common, f"--output_dir={files / 'a'}", "--max_seq_length=16",
                       "--max_predictions_per_seq=3")
    assert "--max_seq_length gives 16" in wrong_length.stderr, wrong_length.stderr[-2000:]
    assert "Traceback" not in wrong_length.stderr, wrong_length.stderr[-2000:]
    indivisible = cli("run_pretraining", *common, f"--output_dir={files / 'b'}", "--max_seq_length=12",
                      "--max_predictions_per_seq=3", "--distribution_strategy=mirrored",
                      "--num_cpu_devices=2", "--train_batch_size=3")
    assert "--train_batch_size=3 must be divisible by the number of replicas (2)" in indivisible.stderr
    # The policy flag's old name still works, and a policy the CPU has no units for is refused.
    no_bf16 = cli("run_pretraining", *common, f"--output_dir={files / 'p'}", "--max_seq_length=12",
                  "--max_predictions_per_seq=3", "--mixed_precision=mixed_bfloat16",
                  env={"KERAS_BERT_CPU_FLAGS": "none"})
    assert no_bf16.returncode != 0
    assert "--dtype_policy: dtype policy mixed_bfloat16 cannot run here" in no_bf16.stderr
    assert "Traceback" not in no_bf16.stderr and not (files / "p" / "checkpoint").exists()
    other = dict(train_worker.CONFIG, hidden_size=12)
    (files / "other.json").write_text(json.dumps(other))
    (files / "vocab40.txt").write_text("\n".join(RECORDS_VOCAB) + "\n")
    ok = cli("run_pretraining", *common, f"--output_dir={files / 'c'}", "--max_seq_length=12",
             "--max_predictions_per_seq=3", "--train_batch_size=4", "--dynamic_masking",
             f"--vocab_file={files / 'vocab40.txt'}", "--do_eval", "--max_eval_steps=3")
    assert ok.returncode == 0, ok.stderr[-2000:]
    results = json.loads((files / "c" / "eval_results.json").read_text())
    assert results["examples"] == 24 and results["global_step"] == 1  # 3 batches of 8
    # One step from BERT's init predicts nearly uniformly: the losses are ln(vocabulary) and
    # ln(2) (measured 3.6933 vs 3.6889 and 0.6929 vs 0.6931), and the total is their sum.
    assert results["mlm_loss"] == pytest.approx(np.log(len(RECORDS_VOCAB)), abs=0.05)
    assert results["nsp_loss"] == pytest.approx(np.log(2), abs=0.01)
    assert results["loss"] == pytest.approx(results["mlm_loss"] + results["nsp_loss"], abs=1e-5)
    assert 0.0 <= results["mlm_accuracy"] <= 1.0
    assert "mlm_accuracy = " in (files / "c" / "eval_results.txt").read_text()
    eval_only = cli("run_pretraining", *common, f"--output_dir={files / 'c'}", "--max_seq_length=12",
                    "--max_predictions_per_seq=3", "--do_train=false", "--do_eval", "--max_eval_steps=3")
    assert eval_only.returncode == 0, eval_only.stderr[-2000:]
    again = json.loads((files / "c" / "eval_results.json").read_text())
    # Same weights, same records, no dropout: the same evaluation, every number of it.
    assert again["examples"] == results["examples"] and again["global_step"] == 1
    for key in ("loss", "mlm_loss", "mlm_accuracy"):
        assert abs(again[key] - results[key]) < 1e-5, key
    # The text file shows the same numbers.
    text = (files / "c" / "eval_results.txt").read_text()
    assert f"mlm_accuracy = {again['mlm_accuracy']}" in text, text
    plotted = cli("plot_pretraining", f"--output_dir={files / 'c'}")
    assert plotted.returncode == 0, plotted.stderr[-2000:]
    assert (files / "c" / "curves.png").read_bytes()[:4] == b"\x89PNG"
    mismatch = cli("run_pretraining", f"--input_file={files / 'd.tfrecord'}", f"--bert_config_file={files / 'other.json'}",
                   "--num_train_steps=1", "--num_warmup_steps=0", f"--output_dir={files / 'e'}",
                   "--max_seq_length=12", "--max_predictions_per_seq=3", "--train_batch_size=4",
                   f"--init_checkpoint={files / 'c'}")
    assert "--init_checkpoint" in mismatch.stderr and "hidden_size: checkpoint 8 vs model 12" in mismatch.stderr
    reused = cli("run_pretraining", f"--input_file={files / 'd.tfrecord'}", f"--bert_config_file={files / 'other.json'}",
                 "--num_train_steps=1", "--num_warmup_steps=0", f"--output_dir={files / 'c'}",
                 "--max_seq_length=12", "--max_predictions_per_seq=3")
    assert "holds a run of another model" in reused.stderr


@pytest.mark.large
def test_learn_vocabulary_then_create_pretraining_data(files):
    (files / "corpus.txt").write_text(TEXT * 30)
    done = cli("learn_vocabulary", f"--input_file={files / 'corpus.txt'}",
               f"--vocab_file={files / 'learned' / 'vocab.txt'}", "--vocab_size=40")
    assert done.returncode == 0, done.stderr[-2000:]
    learned = (files / "learned" / "vocab.txt").read_text().splitlines()
    assert learned[:5] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    assert 38 <= len(learned) <= 40 and len(set(learned)) == len(learned)
    assert {"the", "cat", "."} <= set(learned) and any(t.startswith("##") for t in learned)
    assert f"{len(learned)} tokens" in done.stdout
    # The learned vocabulary is usable as it is: every corpus word becomes known pieces, no [UNK].
    made = cli(
        "create_pretraining_data", f"--input_file={files / 'corpus.txt'}",
        f"--output_file={files / 'out' / 'p.tfrecord'}", f"--vocab_file={files / 'learned' / 'vocab.txt'}",
        "--max_seq_length=16", "--max_predictions_per_seq=4", "--dupe_factor=1",
    )
    assert made.returncode == 0, made.stderr[-2000:]
    records = read_records(str(files / "out" / "p.tfrecord"), 16, 4)
    assert (records["input_ids"][:, 0] == learned.index("[CLS]")).all()
    assert not (records["input_ids"] == learned.index("[UNK]")).any()

    too_small = cli("learn_vocabulary", f"--input_file={files / 'corpus.txt'}",
                    f"--vocab_file={files / 'v.txt'}", "--vocab_size=3")
    assert too_small.returncode != 0 and "no room beyond the 5 special tokens" in too_small.stderr
    assert not (files / "v.txt").exists()


@pytest.mark.large
def test_prepare_pretraining_text_writes_sentences_and_rejects_non_utf8(files):
    (files / "book.txt").write_text(
        "CHAPTER I\n\nThe cat sat on the mat. It was\nwarm there!\n\nThe dog ran away. Why?\n"
    )
    done = cli("prepare_pretraining_text", f"--input_file={files / 'book.txt'}",
               f"--output_file={files / 'corpus_out.txt'}")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = (files / "corpus_out.txt").read_text().splitlines()
    assert "The cat sat on the mat." in lines and "It was warm there!" in lines
    assert "The dog ran away." in lines and "Why?" in lines
    assert "1 file(s) ->" in done.stdout

    (files / "latin1.txt").write_bytes("caf\xe9 au lait.\n".encode("latin-1"))
    bad = cli("prepare_pretraining_text", f"--input_file={files / 'latin1.txt'}",
              f"--output_file={files / 'x.txt'}")
    assert bad.returncode != 0 and "is not UTF-8 text" in bad.stderr
    assert not (files / "x.txt").exists()
