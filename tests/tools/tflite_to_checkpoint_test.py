"""tools/tflite_to_checkpoint.py: a task model's weights read back out of its `.tflite`.

The oracle is the Keras model the file was converted from: its weights, exactly for a float32
file and within half an int8 step of each weight for a dynamic-int8 one.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

from keras_bert.export.tflite.conversion import export_tflite
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_question_answerer import BertQuestionAnswerer
from tests.test_case import TestCase, randomize_weights
from tools.tflite_to_checkpoint import read_tflite_weights, restore_from_tflite

# Wide enough that the converter quantizes every dense kernel and the token embedding (it leaves
# tensors under 1,024 values in float32).
CONFIG = dict(vocab_size=40, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
              intermediate_size=128, max_position_embeddings=24, type_vocab_size=2,
              hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
SEQ = 16


def _answerer(seed):
    model = BertQuestionAnswerer(BertEncoder(**CONFIG))
    randomize_weights(model, seed=seed, scale=0.2)
    return model


class TfliteToCheckpointTest(TestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.dir = tempfile.mkdtemp()
        cls.original = _answerer(seed=1)
        cls.files = {q: export_tflite(cls.original, os.path.join(cls.dir, f"{q}.tflite"), SEQ, q)
                     for q in ("float32", "dynamic_int8")}

    def _check(self, quantization, tolerance):
        """Every weight the file holds comes back within `tolerance(original)`; the pooler and
        the position rows past the file's length keep the base checkpoint's values."""
        model = _answerer(seed=2)  # the "base checkpoint": other weights everywhere
        base = {v.path: np.array(v) for v in model.weights}
        missing = restore_from_tflite(model, self.files[quantization])
        self.assertEqual(missing, ["pooler/dense/kernel", "pooler/dense/bias"])
        original = {v.path: np.array(v) for v in self.original.weights}
        for variable in model.weights:
            value, expected = np.array(variable), original[variable.path]
            if variable.path in missing:
                np.testing.assert_array_equal(value, base[variable.path])
                continue
            if variable.path.endswith("position_embeddings"):
                np.testing.assert_array_equal(value[SEQ:], base[variable.path][SEQ:])
                value, expected = value[:SEQ], expected[:SEQ]
            error = np.abs(value - expected)
            bound = tolerance(variable.path, expected)
            self.assertTrue(np.all(error <= bound), (variable.path, (error - bound).max()))
        return model

    def test_float32_file_gives_the_weights_exactly(self):
        model = self._check("float32", lambda path, w: np.zeros_like(w))
        inputs = dict(token_ids=np.array([[2, 5, 7, 9, 0]] * 2, "int32"),
                      segment_ids=np.array([[0, 0, 1, 1, 0]] * 2, "int32"),
                      padding_mask=np.array([[1, 1, 1, 1, 0]] * 2, "int32"))
        self.assertAllClose(model.predict(inputs, verbose=0),
                            self.original.predict(inputs, verbose=0), atol=0)

    def test_dynamic_int8_file_gives_each_weight_within_half_a_step(self):
        """Symmetric int8: the step is max|w| / 127 per output channel for dense kernels
        (Keras [in, out]: per column) and per tensor for the token embedding; the rest is
        float32 in the file and must come back exactly."""
        def half_step(path, w):
            if path.endswith("/kernel") and not path.startswith("span_head"):
                return np.abs(w).max(axis=0, keepdims=True) / 127 / 2 * (1 + 1e-5)
            if path.endswith("token_embedding/embeddings"):
                return np.abs(w).max() / 127 / 2 * (1 + 1e-5) + np.zeros_like(w)
            return np.zeros_like(w)

        model = self._check("dynamic_int8", half_step)
        # And the int8 tensors did move: the file is not float32 in disguise.
        weights = read_tflite_weights(model, self.files["dynamic_int8"])
        kernel = "transformer_layer_0/intermediate/kernel"
        original = {v.path: np.array(v) for v in self.original.weights}
        self.assertGreater(np.abs(weights[kernel] - original[kernel]).max(), 1e-5)

    def test_a_full_int8_file_is_refused(self):
        calibration = dict(token_ids=np.full((2, SEQ), 3, "int32"),
                           segment_ids=np.zeros((2, SEQ), "int32"),
                           padding_mask=np.ones((2, SEQ), "int32"))
        path = export_tflite(self.original, os.path.join(self.dir, "full_int8.tflite"), SEQ,
                             "full_int8", representative_inputs=calibration)
        with self.assertRaisesRegex(ValueError, "quantizes its activations"):
            read_tflite_weights(_answerer(seed=2), path)

    def test_cli_writes_a_folder_that_init_checkpoint_reads(self):
        from keras_bert.export.task.task_model import load_task_model
        from keras_bert.checkpoints import save_hf_checkpoint

        base = os.path.join(self.dir, "base")
        save_hf_checkpoint(_answerer(seed=2).encoder, base)
        out = os.path.join(self.dir, "restored")
        result = subprocess.run(
            [sys.executable, "-m", "tools.tflite_to_checkpoint", "--task_name=squad",
             f"--tflite_file={self.files['float32']}", f"--base_checkpoint={base}",
             f"--output_dir={out}"], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr[-2000:])
        model = load_task_model("squad", out, log=lambda line: None)
        original = {v.path: np.array(v) for v in self.original.weights}
        for variable in model.weights:
            if not variable.path.startswith("pooler"):
                np.testing.assert_array_equal(np.array(variable)[:SEQ], original[variable.path][:SEQ],
                                              variable.path)

    def test_cli_names_a_missing_file_in_one_line(self):
        result = subprocess.run(
            [sys.executable, "-m", "tools.tflite_to_checkpoint", "--task_name=squad",
             "--tflite_file=/nonexistent.tflite", "--base_checkpoint=x", "--output_dir=y"],
            capture_output=True, text=True)
        self.assertEqual(result.returncode, 1)
        self.assertIn("--tflite_file=/nonexistent.tflite is not a file", result.stderr)
