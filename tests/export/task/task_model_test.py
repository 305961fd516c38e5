"""keras_bert.export.task.task_model: the exporter's tools rebuild a fine-tuned model from its output dir."""

import os
import tempfile

import numpy as np

import keras_bert
from keras_bert.export.task.task_model import TASKS
from keras_bert.export.task.task_model import load_task_model
from keras_bert.export.task.task_model import task_labels
from keras_bert.checkpoints import save_tf1_checkpoint
from tests.test_case import TINY
from tests.test_case import TestCase
from tests.test_case import randomize_weights
from tests.test_case import tiny_inputs


class TaskModelTest(TestCase):
    def test_labels_per_task(self):
        self.assertIsNone(task_labels("squad"))
        self.assertEqual(task_labels("sst-2"), list(keras_bert.data.GLUE_TASKS["sst-2"].labels))
        self.assertEqual(task_labels("conll2003"), list(keras_bert.data.CONLL2003_LABELS))
        self.assertEqual(len(TASKS), 6)
        with self.assertRaisesRegex(ValueError, "Unknown task 'qnli'; choose from"):
            task_labels("qnli")

    def test_reloads_the_fine_tuned_model_and_its_head(self):
        model = keras_bert.BertClassifier(keras_bert.BertEncoder(**TINY), num_classes=2,
                                          dropout=0.0)
        randomize_weights(model, seed=3, scale=0.2)
        with tempfile.TemporaryDirectory() as root:
            save_tf1_checkpoint(model, os.path.join(root, "best", "bert_model.ckpt"))
            logged = []
            loaded = load_task_model("sst-2", root, log=logged.append)
            self.assertIsInstance(loaded, keras_bert.BertClassifier)
            self.assertEqual(len(logged), 1)
            inputs = tiny_inputs()
            np.testing.assert_allclose(loaded(inputs), model(inputs), atol=1e-6)
            # A classifier's checkpoint has no span head: the QA model must refuse it.
            with self.assertRaisesRegex(ValueError, "no weights for span_head"):
                load_task_model("squad", root, log=logged.append)

    def test_reloads_a_hugging_face_folder(self):
        """tools/gpu_squad.py's output: config.json + model.safetensors, no bert_config.json."""
        from keras_bert.checkpoints import save_hf_checkpoint

        model = keras_bert.BertQuestionAnswerer(keras_bert.BertEncoder(**TINY))
        inputs = tiny_inputs()
        model(inputs)
        randomize_weights(model, seed=4, scale=0.2)
        with tempfile.TemporaryDirectory() as root:
            save_hf_checkpoint(model, root)
            loaded = load_task_model("squad", root, log=lambda line: None)
            expected, got = model(inputs), loaded(inputs)
            for name in ("start_logits", "end_logits"):
                np.testing.assert_allclose(got[name], expected[name], atol=1e-6)
