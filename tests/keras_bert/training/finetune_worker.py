"""A tiny `keras_bert.training.finetune` run for resume tests, on the backend KERAS_BACKEND names.

    python -m tests.keras_bert.training.finetune_worker OUTPUT_DIR [KILL_AT_STEP]

Trains a tiny classifier (dropout on, so the dropout generators' state matters) for 10 steps,
checkpointing every 4; with KILL_AT_STEP the process SIGKILLs itself after that step (no
clean-up, no last checkpoint). At the end it writes every weight to OUTPUT_DIR/final.npz.
"""

import os
import signal
import sys

import keras
import numpy as np

from keras_bert.data.tasks.classification_data import ClassificationTask
from keras_bert.models.bert_config import BertConfig
from keras_bert.tasks import SentenceClassificationTask
from keras_bert.tasks import TaskData
from keras_bert.training import FinetuneConfig
from keras_bert.training import finetune

CONFIG = dict(vocab_size=23, hidden_size=8, num_hidden_layers=2, num_attention_heads=2,
              intermediate_size=12, max_position_embeddings=16, hidden_dropout_prob=0.1,
              attention_probs_dropout_prob=0.1)


class SaveInitial(keras.callbacks.Callback):
    def __init__(self, path):
        super().__init__()
        self.path = path

    def on_train_begin(self, logs=None):
        if not os.path.exists(self.path):
            np.savez(self.path, **_weights(self.model))


def _weights(model):
    return {f"{i:03d}": keras.ops.convert_to_numpy(w) for i, w in enumerate(model.weights)}


class KillAt(keras.callbacks.Callback):
    def __init__(self, step):
        super().__init__()
        self.step, self.seen = step, 0

    def on_train_batch_end(self, batch, logs=None):
        self.seen += 1
        if self.seen == self.step:
            os.kill(os.getpid(), signal.SIGKILL)


def main(output_dir, kill_at=None):
    os.makedirs(output_dir, exist_ok=True)
    config_file = os.path.join(output_dir, "bert_config.json")
    BertConfig.from_dict(CONFIG).to_json_file(config_file)
    rng = np.random.default_rng(0)
    lengths = rng.integers(3, 8, 40)
    mask = (np.arange(7)[None] < lengths[:, None]).astype("int32")
    inputs = {"token_ids": rng.integers(5, 23, (40, 7)).astype("int32") * mask,
              "segment_ids": np.zeros((40, 7), "int32"), "padding_mask": mask}
    labels = (inputs["token_ids"][:, 1] > 13).astype("int32")
    task = SentenceClassificationTask(ClassificationTask("toy", ("0", "1"), 0, None, 1, 2, False),
                                      max_seq_length=7)
    config = FinetuneConfig(os.path.join(output_dir, "run"), bert_config_file=config_file,
                            train_batch_size=4, num_train_steps=10, iterations_per_loop=4,
                            learning_rate=1e-2, random_seed=3, dtype_policy="float32")
    callbacks = [SaveInitial(os.path.join(output_dir, "initial.npz"))]
    callbacks += [KillAt(kill_at)] if kill_at else []
    result = finetune(task, config, train_data=TaskData(None, [None] * 40, inputs, (labels,)),
                      callbacks=callbacks, verbose=0, log=lambda *a: None)
    np.savez(os.path.join(output_dir, "final.npz"), **_weights(result.model))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else None)
