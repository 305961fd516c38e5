"""A run folder records what made it: the same run resumes, a run of other data or settings is
refused in one line, and `overwrite_output_dir` starts it over."""

import json

import numpy as np
import pytest

from keras_bert.data.tasks.classification_data import ClassificationTask
from keras_bert.models.bert_config import BertConfig
from keras_bert.tasks import SentenceClassificationTask
from keras_bert.tasks import TaskData
from keras_bert.training import FinetuneConfig
from keras_bert.training import finetune
from tests.test_case import TINY

pytestmark = pytest.mark.large  # four tiny fine-tunings (about a minute)

TASK = SentenceClassificationTask(ClassificationTask("toy", ("0", "1"), 0, None, 1, 2, False),
                                  max_seq_length=7)


def _data(seed):
    rng = np.random.default_rng(seed)
    inputs = {"token_ids": rng.integers(5, 23, (16, 7)).astype("int32"),
              "segment_ids": np.zeros((16, 7), "int32"), "padding_mask": np.ones((16, 7), "int32")}
    return TaskData(None, [None] * 16, inputs, ((inputs["token_ids"][:, 1] > 13).astype("int32"),))


def _run(tmp_path, data, **settings):
    config_file = tmp_path / "bert_config.json"
    BertConfig.from_dict(TINY).to_json_file(str(config_file))
    config = FinetuneConfig(str(tmp_path / "run"), bert_config_file=str(config_file),
                            train_batch_size=4, num_train_steps=2, iterations_per_loop=2,
                            dtype_policy="float32", **settings)
    return finetune(TASK, config, train_data=data, verbose=0, log=lambda *a: None)


def test_same_run_resumes_other_data_is_refused_overwrite_starts_over(tmp_path):
    _run(tmp_path, _data(0))
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["task"] == "toy" and len(record["train_sha256"]) == 64
    assert _run(tmp_path, _data(0)).metrics["step"] == 2  # the same run: "already done"
    with pytest.raises(ValueError, match=r"holds a run of something else \(train_sha256 "):
        _run(tmp_path, _data(1))
    with pytest.raises(ValueError, match=r"learning_rate 5e-05 -> 0.001"):
        _run(tmp_path, _data(0), learning_rate=1e-3)
    assert (tmp_path / "run" / "checkpoints" / "ckpt-2.npz").exists()  # refused: nothing lost
    _run(tmp_path, _data(1), overwrite_output_dir=True)
    assert json.loads((tmp_path / "run" / "run.json").read_text())["train_sha256"] != \
        record["train_sha256"]
