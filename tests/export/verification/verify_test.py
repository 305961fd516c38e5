"""keras_bert.export.verification.verify.compare_variants / write_report: a .tflite LiteRT cannot run gets a
row, not a crash."""

import os
import tempfile

import numpy as np

import keras_bert
from keras_bert.export.verification.verify import compare_variants, write_report
from tests.test_case import TINY, TestCase, randomize_weights, tiny_inputs


class CompareVariantsTest(TestCase):
    def test_unusable_tflite_gets_an_error_row_and_the_report_keeps_the_rest(self):
        model = keras_bert.BertClassifier(keras_bert.BertEncoder(**TINY), num_classes=2)
        randomize_weights(model, scale=0.2)
        inputs = tiny_inputs(seed=1)
        with tempfile.TemporaryDirectory() as tmp:
            broken = os.path.join(tmp, "broken.tflite")
            with open(broken, "wb") as f:
                f.write(b"not a flatbuffer" * 8)
            rows = compare_variants(
                model, None, {"broken": broken}, inputs,
                lambda outputs: {"accuracy": float(np.mean(outputs["logits"].argmax(-1) == 0))},
                latency_threads=(1,), latency_runs=2,
            )
            self.assertEqual([r["variant"] for r in rows], ["keras", "broken"])
            self.assertEqual(rows[0]["max_abs_logit_diff"], 0.0)
            self.assertIn("LiteRT could not run", rows[1]["error"])
            self.assertNotIn("scores", rows[1])
            report = open(write_report(rows, os.path.join(tmp, "report"), "tiny")).read()
        self.assertIn("| keras |", report)
        self.assertIn("| broken | 0.0 | LiteRT could not run", report)
