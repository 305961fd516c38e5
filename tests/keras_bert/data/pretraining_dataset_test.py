"""The pretraining tf.data pipeline: resuming at a batch, and sharding over input pipelines."""

import numpy as np
import tensorflow as tf

from keras_bert.data.pretraining_dataset import pretraining_dataset
from tests.keras_bert.training.distributed_training_test import write_records


def ids(dataset, n):
    return [batch[0]["token_ids"].numpy() for batch in dataset.take(n)]


def test_start_batch_continues_the_same_stream(tmp_path):
    path = str(tmp_path / "d.tfrecord")
    write_records(path)
    full = ids(pretraining_dataset([path], 4, 12, 3, seed=1), 12)
    resumed = ids(pretraining_dataset([path], 4, 12, 3, seed=1, start_batch=7), 5)
    for a, b in zip(full[7:], resumed):
        np.testing.assert_array_equal(a, b)


def test_pipelines_together_read_the_global_batch(tmp_path):
    path = str(tmp_path / "d.tfrecord")
    write_records(path)
    whole = ids(pretraining_dataset([path], 8, 12, 3, seed=1), 3)
    parts = [
        ids(pretraining_dataset([path], 4, 12, 3, seed=1, input_context=tf.distribute.InputContext(2, i, 2)), 3)
        for i in range(2)
    ]
    for step in range(3):
        union = np.concatenate([parts[0][step], parts[1][step]])
        assert sorted(map(tuple, union)) == sorted(map(tuple, whole[step]))
