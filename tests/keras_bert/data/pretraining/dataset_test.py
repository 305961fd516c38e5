"""The pretraining tf.data pipeline: resuming at a batch, and sharding over input pipelines."""

import numpy as np
import tensorflow as tf

from keras_bert.data.pretraining.dataset import pretraining_dataset
from tests.keras_bert.training.distributed_training_test import write_records


def ids(dataset, n):
    return [batch[0]["token_ids"].numpy() for batch in dataset.take(n)]


def test_start_batch_continues_the_same_stream(tmp_path):
    path = str(tmp_path / "d.tfrecord")
    write_records(path)
    full = ids(pretraining_dataset([path], 4, 12, 3, seed=1), 12)
    resumed = ids(pretraining_dataset([path], 4, 12, 3, seed=1, start_batch=7), 5)
    assert len(full) == 12 and len(resumed) == 5
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


def test_dynamic_masking_is_keyed_on_the_running_batch_index(tmp_path):
    # Batch k of an epoch-repeating stream gets masks drawn for index k, so a record seen again
    # in a later epoch (a later k) gets a new mask, and a resumed pipeline redraws the same ones.
    from keras_bert.data.pretraining.dynamic_masking import DynamicMasker
    from keras_bert.data.pretraining.masking import MaskingPolicy
    from tests.keras_bert.training.distributed_training_test import VOCAB

    path = str(tmp_path / "d.tfrecord")
    write_records(path)
    masker = DynamicMasker(VOCAB, MaskingPolicy(max_predictions_per_seq=3), seed=4)
    static = list(pretraining_dataset([path], 4, 12, 3, seed=1).take(7))
    dynamic = list(pretraining_dataset([path], 4, 12, 3, seed=1, masker=masker).take(7))
    resumed = list(pretraining_dataset([path], 4, 12, 3, seed=1, masker=masker, start_batch=5).take(2))
    for k in range(7):
        expected = masker(tf.constant(k, tf.int64), *static[k])
        np.testing.assert_array_equal(dynamic[k][0]["token_ids"], expected[0]["token_ids"])
        np.testing.assert_array_equal(dynamic[k][1]["masked_lm_ids"], expected[1]["masked_lm_ids"])
    for k in range(2):
        np.testing.assert_array_equal(resumed[k][0]["mask_positions"], dynamic[5 + k][0]["mask_positions"])
    same_batch = [masker(tf.constant(k, tf.int64), *static[0])[0]["mask_positions"].numpy() for k in (0, 1)]
    assert (same_batch[0] != same_batch[1]).any()
