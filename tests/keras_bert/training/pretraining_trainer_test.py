"""The pretraining loop in-process: learning, mixed precision, warm starts and clear errors."""

import json

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint
from keras_bert.models.bert_question_answerer import BertQuestionAnswerer
from keras_bert.checkpoints.tf1_checkpoint import save_tf1_checkpoint
from keras_bert.data.pretraining.dataset import pretraining_dataset
from keras_bert.data.pretraining.records import parse_pretraining_batch
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.training.tf_distribute import get_distribution_strategy
from keras_bert.training.optimizer import create_optimizer
from keras_bert.training.pretraining_trainer import PretrainingTrainer
from tests.keras_bert.training import train_worker
from tests.keras_bert.training.distributed_training_test import write_records


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("records") / "d.tfrecord")
    write_records(path)
    return path


def make_trainer(output_dir, batch=8, steps=30, lr=1e-2, **kwargs):
    strategy = get_distribution_strategy("one_device")
    with strategy.scope():
        model = BertPretrainer(BertEncoder(**train_worker.CONFIG))
        optimizer = create_optimizer(model, lr, steps, num_warmup_steps=min(3, steps))
        if keras.mixed_precision.global_policy().name == "mixed_float16":
            optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
    return PretrainingTrainer(model, optimizer, strategy, str(output_dir), batch, verbose=False, **kwargs)


def one_batch_fn(records):
    """The same batch forever: loss must fall."""
    def fn(context, batch_size, start_batch):
        return pretraining_dataset([records], batch_size, 12, 3, is_training=False).take(1).repeat()
    return fn


@pytest.mark.large
def test_loss_falls_on_a_repeated_batch_and_logs_are_written(records, tmp_path):
    trainer = make_trainer(tmp_path, steps=30, steps_per_loop=5, save_checkpoints_steps=10)
    trainer.train(one_batch_fn(records), 30)
    log = [json.loads(line) for line in (tmp_path / "train_log.jsonl").read_text().splitlines()]
    assert [entry["step"] for entry in log] == [5, 10, 15, 20, 25, 30]
    assert log[-1]["loss"] < 0.8 * log[0]["loss"]
    assert log[-1]["mlm_accuracy"] > log[0]["mlm_accuracy"]
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("ckpt-30")
    assert list((tmp_path / "train").glob("events.out.tfevents.*"))  # TensorBoard summaries


@pytest.mark.large
@pytest.mark.parametrize("policy", ["mixed_bfloat16", "mixed_float16"])
def test_mixed_precision_trains(records, tmp_path, policy):
    keras.mixed_precision.set_global_policy(policy)
    try:
        trainer = make_trainer(tmp_path, steps=6, steps_per_loop=6)
        metrics = trainer.train(one_batch_fn(records), 6)
    finally:
        keras.mixed_precision.set_global_policy("float32")
    assert np.isfinite(metrics["loss"]) and metrics["loss"] > 0


def test_batch_not_divisible_by_replicas_times_accumulation(tmp_path):
    with pytest.raises(ValueError, match=r"train_batch_size=6 must be divisible .* `gradient_accumulation_steps` \(4\)"):
        make_trainer(tmp_path, batch=6, gradient_accumulation_steps=4)


def test_model_built_outside_the_strategy_scope_is_refused(tmp_path):
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    model = BertPretrainer(BertEncoder(**train_worker.CONFIG))
    with pytest.raises(ValueError, match="strategy.scope"):
        PretrainingTrainer(model, create_optimizer(model, 1e-3, 5), strategy, str(tmp_path), 4)


@pytest.mark.large
def test_warm_start_from_tf1_and_own_checkpoints_and_config_mismatch(records, tmp_path):
    trainer = make_trainer(tmp_path / "run", steps=2, steps_per_loop=2)
    trainer.train(one_batch_fn(records), 2)
    (tmp_path / "run" / "bert_config.json").write_text(json.dumps(trainer.model.encoder.bert_config.to_dict()))
    save_tf1_checkpoint(trainer.model, str(tmp_path / "tf1" / "bert_model.ckpt"))
    for source in (tmp_path / "run", tmp_path / "tf1" / "bert_model.ckpt"):
        fresh = BertPretrainer(BertEncoder(**train_worker.CONFIG))
        load_init_checkpoint(fresh, source)
        for a, b in zip(fresh.weights, trainer.model.weights):
            np.testing.assert_array_equal(np.array(a), np.array(b))
    # Dropout shapes no weight: a model with other rates warm-starts from the run.
    dropped = BertPretrainer(BertEncoder(**{**train_worker.CONFIG, "hidden_dropout_prob": 0.1,
                                            "attention_probs_dropout_prob": 0.1}))
    assert dropped.encoder.bert_config.to_dict()["hidden_dropout_prob"] != json.loads(
        (tmp_path / "run" / "bert_config.json").read_text())["hidden_dropout_prob"]
    load_init_checkpoint(dropped, tmp_path / "run")
    for a, b in zip(dropped.weights, trainer.model.weights):
        np.testing.assert_array_equal(np.array(a), np.array(b))
    wider = BertPretrainer(BertEncoder(**{**train_worker.CONFIG, "intermediate_size": 16}))
    with pytest.raises(ValueError, match="intermediate_size: checkpoint 12 vs model 16"):
        load_init_checkpoint(wider, tmp_path / "run")
    with pytest.raises(ValueError, match="does not match the model|another size"):
        load_init_checkpoint(wider, tmp_path / "tf1" / "bert_model.ckpt")
    with pytest.raises(FileNotFoundError, match="no checkpoint there"):
        load_init_checkpoint(wider, tmp_path / "nothing")
    # Fine-tuning starts from a pretraining run; evaluating needs a checkpoint with the head.
    qa = BertQuestionAnswerer(BertEncoder(**train_worker.CONFIG))
    load_init_checkpoint(qa, tmp_path / "run")
    for a, b in zip(qa.encoder.weights, trainer.model.encoder.weights):
        np.testing.assert_array_equal(np.array(a), np.array(b))
    with pytest.raises(ValueError, match="stores only the encoder"):
        load_init_checkpoint(qa, tmp_path / "run", require_heads=True)
    with pytest.raises(ValueError, match="has no weights for span_head"):
        load_init_checkpoint(qa, tmp_path / "tf1" / "bert_model.ckpt", require_heads=True)


@pytest.mark.large
def test_the_pretrainer_also_fits_with_keras(records):
    model = BertPretrainer(BertEncoder(**train_worker.CONFIG))
    model.compile(
        optimizer="adam",
        loss={"mlm_logits": keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              "nsp_logits": keras.losses.SparseCategoricalCrossentropy(from_logits=True)},
    )
    serialized = next(iter(tf.data.TFRecordDataset(records).batch(8)))
    inputs, labels = parse_pretraining_batch(serialized, 12, 3)
    y = {"mlm_logits": labels["masked_lm_ids"], "nsp_logits": labels["next_sentence_labels"]}
    weights = {"mlm_logits": labels["masked_lm_weights"], "nsp_logits": tf.ones([8])}
    history = model.fit(inputs, y, sample_weight=weights, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
