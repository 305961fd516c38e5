"""TFLite export: builtin ops only, the ids/mask/segment_ids contract, parity per quantization."""

import os
import subprocess
import tempfile
from unittest import mock

import numpy as np

from keras_bert.export.tflite.conversion import export_tflite, run_tflite, tflite_op_names, tflite_runner
from keras_bert.models.bert_classifier import BertClassifier
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_question_answerer import BertQuestionAnswerer
from tests.test_case import TINY, TestCase, randomize_weights, tiny_inputs


def calibration(n=24, seq=7, seed=3):
    """Tiny-config examples of every length 1..seq, so padded rows are calibrated too."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, seq + 1, n)
    return tiny_inputs(seed=seed, batch=n, seq=seq, lengths=lengths)


def op_dtypes(path):
    """[(op name, its weight's dtype or None, its first output's dtype)] for every op in `path`."""
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_path=path)
    tensors = {t["index"]: t for t in interpreter.get_tensor_details()}
    result = []
    for op in interpreter._get_ops_details():
        weight = op["inputs"][1] if len(op["inputs"]) > 1 else -1
        result.append((op["op_name"], tensors[weight]["dtype"] if weight in tensors else None,
                       tensors[op["outputs"][0]]["dtype"]))
    return result


class TfliteTest(TestCase):
    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp()

    def test_tiny_encoder_converts_with_builtins_and_matches_keras(self):
        encoder = BertEncoder(**TINY)
        randomize_weights(encoder, scale=0.3)
        path = export_tflite(encoder, self.dir + "/encoder.tflite", sequence_length=7, batch_size=3)
        ops = tflite_op_names(path)
        # Builtins only (a Flex op would be named "FlexXxx" / "DELEGATE"), and the exact GELU
        # maps to the builtin GELU kernel.
        self.assertFalse([op for op in ops if op.startswith("Flex") or op == "CUSTOM"], ops)
        self.assertIn("GELU", ops)
        inputs = tiny_inputs(seed=9)
        expected = encoder.predict(inputs, verbose=0)
        actual = run_tflite(path, inputs)
        self.assertAllClose(actual["sequence_output"], expected["sequence_output"], atol=1e-5)
        self.assertAllClose(actual["pooled_output"], expected["pooled_output"], atol=1e-5)

    def test_question_answerer_has_the_qa_example_contract_and_matches(self):
        qa = BertQuestionAnswerer(BertEncoder(**TINY))
        randomize_weights(qa, scale=0.3)
        path = export_tflite(qa, self.dir + "/qa.tflite", sequence_length=7)
        runner = tflite_runner(path)
        details = runner.get_input_details()
        self.assertEqual(sorted(details), ["ids", "mask", "segment_ids"])
        for name, detail in details.items():
            self.assertEqual(list(detail["shape"]), [1, 7], name)
            self.assertEqual(detail["dtype"], np.int32, name)
        self.assertEqual(sorted(runner.get_output_details()), ["end_logits", "start_logits"])
        inputs = {k: v[1:2] for k, v in tiny_inputs(seed=10).items()}
        expected = qa.predict(inputs, verbose=0)
        actual = run_tflite(path, inputs)
        self.assertAllClose(actual["start_logits"], expected["start_logits"], atol=1e-5)
        self.assertAllClose(actual["end_logits"], expected["end_logits"], atol=1e-5)
        # Its digest is in the folder's SHA256SUMS, as coreutils computes it.
        check = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=self.dir,
                               capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        self.assertEqual(check.stdout, "qa.tflite: OK\n")

    def test_quantized_variants_stay_close_and_shrink(self):
        classifier = BertClassifier(BertEncoder(**dict(TINY, hidden_size=64, intermediate_size=256)), 3)
        randomize_weights(classifier, scale=0.1)
        inputs = calibration(seed=4)
        expected = classifier.predict(inputs, verbose=0)
        sizes, errors = {}, {}
        for quantization in ("float32", "float16", "dynamic_int8", "mixed_int8", "full_int8"):
            path = export_tflite(
                classifier, f"{self.dir}/{quantization}.tflite", sequence_length=7,
                quantization=quantization, representative_inputs=calibration(),
            )
            ops = tflite_op_names(path)
            self.assertFalse([op for op in ops if op.startswith("Flex") or op == "CUSTOM"], ops)
            sizes[quantization] = os.path.getsize(path)
            logits = np.concatenate(
                [run_tflite(path, {k: v[i : i + 1] for k, v in inputs.items()})["logits"] for i in range(len(expected))]
            )
            errors[quantization] = np.abs(logits - expected).max()
        scale = np.abs(expected).max()
        # Bounds: about 2-8x the errors measured on 2026-11-25 (AMD EPYC Zen 4, XNNPACK; the
        # weights and calibration are seeded, so these are the values): float32 1.2e-7 (summation
        # order), float16 1.7e-4, dynamic int8 0.0082, mixed int8 0.0208 (2026-11-26) and full
        # int8 0.0216 of max |logit|.
        self.assertLess(errors["float32"], 1e-6)
        self.assertLess(errors["float16"], 5e-4 * scale)
        self.assertLess(errors["dynamic_int8"], 0.02 * scale)
        self.assertLess(errors["mixed_int8"], 0.05 * scale)
        self.assertLess(errors["full_int8"], 0.05 * scale)
        # Weights dominate the file: float16 halves it, int8 quarters it (plus fixed overhead);
        # measured 0.555, 0.356, 0.396 (mixed) and 0.391 of float32's size.
        self.assertLess(sizes["float16"], 0.6 * sizes["float32"])
        self.assertLess(sizes["dynamic_int8"], 0.4 * sizes["float32"])
        self.assertLess(sizes["mixed_int8"], 0.45 * sizes["float32"])
        self.assertLess(sizes["full_int8"], 0.45 * sizes["float32"])

    def test_full_int8_quantizes_the_matmuls(self):
        qa = BertQuestionAnswerer(BertEncoder(**TINY))
        randomize_weights(qa, scale=0.3)
        path = export_tflite(
            qa, self.dir + "/int8.tflite", sequence_length=7, quantization="full_int8",
            representative_inputs=calibration(),
        )
        fully_connected = [op for op in op_dtypes(path) if op[0] == "FULLY_CONNECTED"]
        self.assertTrue(fully_connected)
        for _, weight, output in fully_connected:
            self.assertEqual((weight, output), (np.int8, np.int8))

    def test_mixed_int8_keeps_attention_and_layer_norm_in_float(self):
        qa = BertQuestionAnswerer(BertEncoder(**TINY))
        randomize_weights(qa, scale=0.3)
        path = export_tflite(
            qa, self.dir + "/mixed.tflite", sequence_length=7, quantization="mixed_int8",
            representative_inputs=calibration(),
        )
        ops = op_dtypes(path)
        fully_connected = [op for op in ops if op[0] == "FULLY_CONNECTED"]
        self.assertTrue(fully_connected)
        for _, weight, output in fully_connected:
            self.assertEqual((weight, output), (np.int8, np.int8))
        kept = {"BATCH_MATMUL", "SOFTMAX", "GELU", "MEAN", "RSQRT", "SQUARED_DIFFERENCE"}
        float_ops = [op for op in ops if op[0] in kept]
        self.assertEqual({op[0] for op in float_ops}, kept)
        for name, _, output in float_ops:
            self.assertEqual(output, np.float32, name)

    def test_bad_arguments_are_clear_and_write_nothing(self):
        qa = BertQuestionAnswerer(BertEncoder(**TINY))
        path = self.dir + "/bad.tflite"
        with self.assertRaisesRegex(ValueError, "calibration set is empty"):
            export_tflite(qa, path, 7, "full_int8", {k: v[:0] for k, v in calibration().items()})
        with self.assertRaisesRegex(ValueError, "need representative_inputs"):
            export_tflite(qa, path, 7, "full_int8")
        with self.assertRaisesRegex(ValueError, "need representative_inputs"):
            export_tflite(qa, path, 7, "mixed_int8")
        with self.assertRaisesRegex(ValueError, "exactly the keys"):
            export_tflite(qa, path, 7, "full_int8", {"ids": np.zeros((1, 7), "int32")})
        with self.assertRaisesRegex(ValueError, r"shape \(24, 7\), expected \(24, 5\)"):
            export_tflite(qa, path, 5, "full_int8", calibration())
        with self.assertRaisesRegex(ValueError, "1 to 16 tokens"):
            export_tflite(qa, path, 17)
        with self.assertRaisesRegex(ValueError, "quantization='int4'"):
            export_tflite(qa, path, 7, "int4")
        with mock.patch("keras_bert.export.tflite.conversion.convert_saved_model",
                        side_effect=RuntimeError("boom")):
            with self.assertRaisesRegex(RuntimeError, "boom"):
                export_tflite(qa, path, 7)
        self.assertEqual(os.listdir(self.dir), [])
