"""`Finetuner`: an interrupted run resumes to the same weights; the best evaluation is kept."""

import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_bert.checkpoints.tf1_checkpoint import read_tf1_weights
from keras_bert.checkpoints.weight_map import collect_weights
from keras_bert.models.bert_classifier import BertClassifier
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.training.finetuner import Finetuner
from keras_bert.training.optimizer import create_optimizer
from tests.test_case import TINY

STEPS, PER_LOOP = 6, 2


def classifier():
    keras.utils.set_random_seed(1)
    model = BertClassifier(BertEncoder(**TINY), num_classes=2, dropout=0.0)
    model.compile(
        optimizer=create_optimizer(model, 1e-2, STEPS, 1, global_clipnorm=1.0),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    return model


def dataset():
    rng = np.random.default_rng(0)
    x = {
        "token_ids": rng.integers(1, TINY["vocab_size"], (40, 7)).astype("int32"),
        "segment_ids": np.zeros((40, 7), "int32"),
        "padding_mask": np.ones((40, 7), "int32"),
    }
    y = (x["token_ids"][:, 1] > TINY["vocab_size"] // 2).astype("int32")
    return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(40, seed=3).repeat().batch(4)


class Interrupt(keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        if epoch == 2:  # after the step-4 checkpoint
            raise KeyboardInterrupt


def scores_in_order(values):
    values = iter(values)
    return lambda model: {"score": next(values)}


@pytest.mark.large
def test_resumed_run_equals_uninterrupted_and_keeps_the_best(tmp_path):
    straight = classifier()
    Finetuner(straight, str(tmp_path / "a"), STEPS, PER_LOOP).fit(dataset(), verbose=0)

    interrupted = classifier()
    scores = scores_in_order([0.5, 0.9, 0.7])
    finetuner = Finetuner(
        interrupted, str(tmp_path / "b"), STEPS, PER_LOOP, evaluate_fn=scores, monitor="score",
        eval_every_steps=2,
    )
    with pytest.raises(KeyboardInterrupt):
        finetuner.fit(dataset(), verbose=0, callbacks=[Interrupt()])
    assert finetuner.step == 4
    step4 = collect_weights(interrupted)

    resumed = classifier()  # a fresh process: new model, same command
    finetuner = Finetuner(
        resumed, str(tmp_path / "b"), STEPS, PER_LOOP, evaluate_fn=scores, monitor="score",
        eval_every_steps=2,
    )
    finetuner.fit(dataset(), verbose=0)
    assert finetuner.step == STEPS
    final, reference = collect_weights(resumed), collect_weights(straight)
    for name in reference:
        np.testing.assert_allclose(final[name], reference[name], atol=1e-6, err_msg=name)

    # Scores 0.5 (step 2), 0.9 (step 4), 0.7 (step 6): the best checkpoint is step 4's weights.
    assert finetuner.best_metrics()["step"] == 4 and finetuner.best_metrics()["score"] == 0.9
    best = read_tf1_weights(finetuner.best_checkpoint)
    for name in step4:
        np.testing.assert_allclose(best[name], step4[name], atol=1e-7, err_msg=name)
    history = [json.loads(line) for line in open(tmp_path / "b" / "eval_history.jsonl")]
    assert [h["step"] for h in history] == [2, 4, 6]
    assert os.path.exists(tmp_path / "b" / "best" / "bert_config.json")


def test_without_evaluation_the_final_weights_are_the_best(tmp_path):
    model = classifier()
    finetuner = Finetuner(model, str(tmp_path), 3, 2)
    finetuner.fit(dataset(), verbose=0)
    assert finetuner.step == 3  # stops at the budget inside the second loop
    best = read_tf1_weights(finetuner.best_checkpoint)
    for name, value in collect_weights(model).items():
        np.testing.assert_array_equal(best[name], value)
    assert Finetuner(classifier(), str(tmp_path), 3, 2).fit(dataset(), verbose=0)["step"] == 3


def test_evaluations_fall_on_exact_multiples_inside_loops(tmp_path):
    steps_seen = []

    def evaluate(model):
        steps_seen.append(int(model.optimizer.iterations.numpy()))
        return {"score": float(len(steps_seen))}

    finetuner = Finetuner(classifier(), str(tmp_path), 7, 3, evaluate_fn=evaluate,
                          monitor="score", eval_every_steps=2)
    finetuner.fit(dataset(), verbose=0)
    assert steps_seen == [2, 4, 6, 7]  # loops end at 3, 6, 7; epochs of 2 steps do not
    assert finetuner.best_metrics()["step"] == 7
    assert sorted(p.name for p in (tmp_path / "checkpoints").glob("ckpt-*")) == [
        "ckpt-6.npz", "ckpt-7.npz"
    ]


@pytest.mark.large
def test_a_run_built_under_a_strategy_resumes(tmp_path):
    # The CLIs build and compile under `strategy.scope()`; restoring must create the optimizer's
    # slots under that strategy too (it raised "Need to be inside strategy.scope()" before).
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    with strategy.scope():
        first = classifier()
    with pytest.raises(KeyboardInterrupt):
        Finetuner(first, str(tmp_path / "s"), STEPS, PER_LOOP).fit(
            dataset(), verbose=0, callbacks=[Interrupt()])
    with strategy.scope():
        resumed = classifier()
    finetuner = Finetuner(resumed, str(tmp_path / "s"), STEPS, PER_LOOP)
    assert finetuner.restore() == 4
    finetuner.fit(dataset(), verbose=0)
    assert finetuner.step == STEPS
