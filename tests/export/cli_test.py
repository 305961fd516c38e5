"""`python -m keras_bert.export.cli`: export + verify a fine-tuned classifier end to end, and its usage errors."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import keras_bert
import numpy as np
import pytest

from keras_bert.checkpoints import save_tf1_checkpoint
from tests.data_paths import shared_data_dir
from tests.test_case import TINY, TestCase, randomize_weights

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VOCAB = os.path.join(shared_data_dir(), "vocab", "bert-base-uncased-vocab.txt")
SST2_DEV = os.path.join(shared_data_dir(), "glue", "SST-2", "dev.tsv")


def export_cli(*args):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.run(
        [sys.executable, "-m", "keras_bert.export.cli", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )


def fine_tuned_dir():
    """A tiny 'fine-tuning output' dir: best/ with a TF1 checkpoint, bert_config.json, vocab.txt."""
    root = tempfile.mkdtemp()
    best = os.path.join(root, "best")
    config = dict(TINY, vocab_size=len(keras_bert.load_vocabulary(VOCAB)), max_position_embeddings=64)
    model = keras_bert.BertClassifier(keras_bert.BertEncoder(**config), num_classes=2)
    randomize_weights(model, scale=0.2)
    save_tf1_checkpoint(model, os.path.join(best, "bert_model.ckpt"))
    shutil.copy(VOCAB, os.path.join(best, "vocab.txt"))
    return root, model


class ExportCliTest(TestCase):
    def test_usage_errors_are_clear(self):
        root, _ = fine_tuned_dir()
        common = ["--task_name=sst-2", f"--init_checkpoint={root}", f"--export_dir={root}/out"]
        cases = [
            (["--quantizations=float32,int4"], "unknown ['int4']"),
            (["--quantizations=full_int8"], "full_int8 needs --calibration_file"),
            (["--quantizations=mixed_int8"], "mixed_int8 needs --calibration_file"),
            (["--quantizations=full_int8,qat_int8"], "full_int8 and qat_int8 need --calibration_file"),
            (["--verify", "--formats=tflite", "--quantizations=float32"], "--verify needs --predict_file"),
            (["--vocab_file=/nonexistent/vocab.txt", "--quantizations=float32"], "No vocab.txt"),
        ]
        for extra, message in cases:
            result = export_cli(*common, *extra)
            self.assertNotEqual(result.returncode, 0, extra)
            self.assertIn(message, result.stderr, extra)
        self.assertFalse(os.path.exists(f"{root}/out/sst2"))

    @pytest.mark.large
    def test_exports_and_verifies_a_classifier(self):
        root, model = fine_tuned_dir()
        out = os.path.join(root, "out")
        result = export_cli(
            "--task_name=sst-2", f"--init_checkpoint={root}", f"--export_dir={out}",
            "--max_seq_length=32", "--quantizations=float32,dynamic_int8,mixed_int8,full_int8,qat_int8",
            f"--calibration_file={SST2_DEV}", "--num_calibration_examples=16",
            "--qat_steps=3", "--num_qat_examples=40",
            "--verify", f"--predict_file={SST2_DEV}", "--max_eval_examples=24",
            "--latency_runs=2",
        )
        self.assertEqual(result.returncode, 0, result.stderr[-3000:])
        self.assertTrue(os.path.isfile(os.path.join(out, "sst2", "1", "saved_model.pb")))
        self.assertTrue(
            os.path.isfile(os.path.join(out, "sst2", "1", "assets.extra", "tf_serving_warmup_requests"))
        )
        with open(os.path.join(out, "reports", "sst2", "verification.json")) as f:
            report = json.load(f)
        rows = {row["variant"]: row for row in report["rows"]}
        self.assertEqual(
            list(rows),
            ["keras", "saved_model", "float32", "dynamic_int8", "mixed_int8", "full_int8", "qat_int8"],
        )
        with open(os.path.join(out, "qat", "sst2", "state.json")) as f:
            self.assertEqual(json.load(f)["step"], 3)
        # The Keras row's accuracy is the model's on the first 24 dev sentences and their labels,
        # recomputed here through the preprocessing layer rather than the export's data path.
        with open(SST2_DEV, encoding="utf-8") as f:
            dev = [line.rstrip("\n").split("\t") for line in f.readlines()[1:25]]
        inputs = keras_bert.BertPreprocessor(keras_bert.load_vocabulary(VOCAB), 32)(
            [sentence for sentence, _ in dev])
        predicted = model.predict(inputs, verbose=0).argmax(-1)
        accuracy = float(np.mean(predicted == np.array([int(label) for _, label in dev])))
        self.assertAlmostEqual(rows["keras"]["scores"]["accuracy"], accuracy, places=6)
        # Every variant scores the same 24 here (the tiny model's logits are far apart relative
        # to its errors). Logit-error bounds: 3-10x those measured on 2026-11-25 (AMD EPYC Zen 4):
        # SavedModel 0, float32 8.9e-8, dynamic int8 1.3e-5, mixed int8 1.2e-3 (2026-11-26),
        # full int8 1.5e-3, QAT int8 1.8e-3.
        for variant, bound in (("saved_model", 1e-6), ("float32", 1e-6), ("dynamic_int8", 1e-4),
                               ("mixed_int8", 5e-3), ("full_int8", 5e-3), ("qat_int8", 5e-3)):
            self.assertEqual(rows[variant]["scores"], rows["keras"]["scores"], variant)
            self.assertLess(rows[variant]["max_abs_logit_diff"], bound, variant)
        # The int8 variants are int8 files (about a quarter of float32).
        for variant in ("mixed_int8", "full_int8", "qat_int8"):
            self.assertLess(rows[variant]["size_bytes"], 0.5 * rows["float32"]["size_bytes"])
        for row in rows.values():
            self.assertEqual(sorted(row["latency"]), ["1", "2"])
            self.assertGreater(row["latency"]["1"]["p50_ms"], 0)
        self.assertEqual(report["serve_text"], {"examples": 24, "same_label": 24})
        self.assertLess(rows["dynamic_int8"]["size_bytes"], 0.5 * rows["float32"]["size_bytes"])
        with open(os.path.join(out, "reports", "sst2", "verification.md")) as f:
            self.assertIn("| float32 |", f.read())
