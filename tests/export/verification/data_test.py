"""keras_bert.export.verification.data.TaskData: evaluation limits and seeded samples on the shared SQuAD /
SST-2 files."""

import os

import numpy as np

from keras_bert.export.verification.data import TaskData
from tests.data_paths import shared_data_dir
from tests.test_case import TestCase

VOCAB = os.path.join(shared_data_dir(), "vocab", "bert-base-uncased-vocab.txt")
SQUAD_DEV = os.path.join(shared_data_dir(), "squad", "dev-v1.1.json.gz")
SST2_TRAIN = os.path.join(shared_data_dir(), "glue", "SST-2", "train.tsv")
SQUAD_OPTIONS = dict(doc_stride=128, max_query_length=64)


class TaskDataTest(TestCase):
    def test_squad_evaluation_keeps_first_questions_of_last_articles(self):
        data = TaskData("squad", VOCAB, True, 384, SQUAD_OPTIONS)
        every = data.evaluation(SQUAD_DEV, 1, None)
        first = data.evaluation(SQUAD_DEV, 1, 30)
        self.assertEqual(first.description["questions"], 30)
        self.assertGreater(every.description["questions"], 30)
        # The same windows, cut after the 30th question (articles and paragraphs in order).
        windows = first.description["windows"]
        for name in ("token_ids", "segment_ids", "padding_mask"):
            np.testing.assert_array_equal(first.inputs[name], every.inputs[name][:windows])

    def test_samples_are_seeded_sorted_subsets(self):
        data = TaskData("sst-2", VOCAB, True, 32, None)
        a = data.calibration_inputs(SST2_TRAIN, 50, seed=3)
        b = data.calibration_inputs(SST2_TRAIN, 50, seed=3)
        c = data.calibration_inputs(SST2_TRAIN, 50, seed=4)
        np.testing.assert_array_equal(a["token_ids"], b["token_ids"])
        self.assertFalse(np.array_equal(a["token_ids"], c["token_ids"]))
        inputs, labels = data.training_data(SST2_TRAIN, 50, seed=3)
        self.assertEqual(len(labels), 50)
        # One sampler: the calibration sample and the training sample are the same sentences.
        np.testing.assert_array_equal(inputs["token_ids"], a["token_ids"])
