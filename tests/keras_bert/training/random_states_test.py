"""Dropout's random state survives a checkpoint only when saved explicitly (random_states)."""

import keras
import numpy as np
import tensorflow as tf

import keras_bert
from keras_bert.training.finetuner import Finetuner
from keras_bert.training.optimizer import create_optimizer
from keras_bert.training.random_states import random_states

CONFIG = {"vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
          "intermediate_size": 32, "max_position_embeddings": 16}
X = {"token_ids": np.ones((4, 8), "int32"), "segment_ids": np.zeros((4, 8), "int32"),
     "padding_mask": np.ones((4, 8), "int32")}


def model():
    keras.utils.set_random_seed(1)
    classifier = keras_bert.BertClassifier(
        keras_bert.BertEncoder.from_bert_config(keras_bert.BertConfig.from_dict(CONFIG)), 2)
    classifier.compile(optimizer=create_optimizer(classifier, 1e-3, 10, 1),
                       loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return classifier


def counters(m):
    return sorted(v.numpy().tolist() for v in random_states(m))


def test_random_states_are_the_dropout_seed_generators():
    m = model()
    paths = [v.path for v in m.variables if v.path not in {w.path for w in m.weights}]
    assert paths and all(p.endswith("seed_generator_state") for p in paths)
    assert len(random_states(m)) == len(paths)


def test_a_finetuner_checkpoint_restores_the_dropout_counters(tmp_path):
    trained = model()
    trained.fit(X, np.array([0, 1, 0, 1]), epochs=3, verbose=0)
    assert all(state[1] >= 3 for state in counters(trained))  # at least a draw per step
    saved = Finetuner(trained, str(tmp_path), num_train_steps=10)
    saved.save_checkpoint(3)
    # A plain model checkpoint loses them: the counters restart at zero.
    plain = tf.train.Checkpoint(model=trained).save(str(tmp_path / "plain" / "c"))
    fresh = model()
    tf.train.Checkpoint(model=fresh).restore(plain).expect_partial()
    assert all(state[1] == 0 for state in counters(fresh))
    resumed = model()
    assert Finetuner(resumed, str(tmp_path), num_train_steps=10).restore() == 3
    assert counters(resumed) == counters(trained)


def test_a_checkpoint_written_before_random_states_still_resumes(tmp_path, capsys):
    trained = model()
    trained.fit(X, np.array([0, 1, 0, 1]), epochs=2, verbose=0)
    old = tf.train.CheckpointManager(tf.train.Checkpoint(model=trained, optimizer=trained.optimizer),
                                     str(tmp_path / "checkpoints"), max_to_keep=2)
    old.save(checkpoint_number=2)
    resumed = model()
    assert Finetuner(resumed, str(tmp_path), num_train_steps=10).restore() == 2
    assert "has no dropout random state (an older checkpoint)" in capsys.readouterr().out
    for got, want in zip(resumed.weights, trained.weights):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
