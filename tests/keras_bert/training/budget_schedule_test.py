"""The budget schedule and budgeted pretraining: the rate reaches zero where the budget ends."""

import json
import time

import numpy as np
import pytest

from keras_bert.data.pretraining.dataset import pretraining_dataset
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.training.budget_schedule import Budget
from keras_bert.training.budget_schedule import BudgetSchedule
from keras_bert.training.tf_distribute import get_distribution_strategy
from keras_bert.training.optimizer import create_optimizer
from keras_bert.training.pretraining_trainer import PretrainingTrainer
from tests.keras_bert.training import train_worker
from tests.keras_bert.training.distributed_training_test import write_records

PEAK, WARMUP = 1e-2, 0.25
BATCH = 4


def expected_rate(progress, peak=PEAK, warmup=WARMUP):
    """The schedule's definition, written out case by case."""
    if progress < warmup:
        return peak * progress / warmup
    if progress >= 1.0:
        return 0.0
    return peak * (1.0 - progress) / (1.0 - warmup)


def rate_at(schedule, progress):
    schedule.progress.assign(progress)
    return float(schedule(12345))  # the step is ignored


def test_rate_is_warmup_then_linear_decay_over_the_budget():
    schedule = BudgetSchedule(PEAK, WARMUP)
    # Hand values: half-way through warm-up, its end, half-way through the decay, the end.
    for progress, rate in [(0.0, 0.0), (0.125, 5e-3), (0.25, 1e-2), (0.625, 5e-3), (1.0, 0.0),
                           (1.7, 0.0)]:
        assert rate_at(schedule, progress) == pytest.approx(rate, abs=1e-9), progress
    for progress in np.linspace(0.0, 1.2, 49):
        assert rate_at(schedule, progress) == pytest.approx(expected_rate(progress), abs=1e-8)
    no_warmup = BudgetSchedule(PEAK)
    assert [rate_at(no_warmup, p) for p in (0.0, 0.5, 1.0)] == pytest.approx([1e-2, 5e-3, 0.0])


@pytest.mark.parametrize("kwargs, message", [
    (dict(learning_rate=0.0), "learning_rate must be positive"),
    (dict(learning_rate=1e-3, warmup_fraction=1.0), "warmup_fraction must be in [0, 1)"),
    (dict(learning_rate=1e-3, warmup_fraction=-0.1), "warmup_fraction must be in [0, 1)"),
])
def test_schedule_refuses_bad_settings(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace(")", r"\)")):
        BudgetSchedule(**kwargs)


def test_budget_refuses_bad_units_and_amounts():
    with pytest.raises(ValueError, match="use one of"):
        Budget(10, "steps")
    with pytest.raises(ValueError, match="must be positive"):
        Budget(0, "tokens")
    assert Budget(5400).describe() == "1.5 h"
    assert Budget(2.5e6, "tokens").describe() == "2.5 M tokens"


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("records") / "d.tfrecord")
    write_records(path)
    return path


def dataset_fn(records):
    def fn(context, batch_size, start_batch):
        return pretraining_dataset([records], batch_size, train_worker.SEQ,
                                   train_worker.PREDICTIONS, seed=1, start_batch=start_batch)
    return fn


def tokens_per_batch(records, count):
    """Real tokens of the training stream's first `count` batches, read here, not by the loop."""
    batches = dataset_fn(records)(None, BATCH, 0).take(count)
    return [float(np.sum(inputs["padding_mask"])) for inputs, _ in batches]


def budget_trainer(output_dir, budget, schedule=None):
    strategy = get_distribution_strategy("one_device")
    with strategy.scope():
        model = BertPretrainer(BertEncoder(**train_worker.CONFIG))
        optimizer = create_optimizer(model, schedule or BudgetSchedule(PEAK, WARMUP), None)
    rng = np.random.default_rng(0)  # the same start in every trainer
    for variable in model.weights:
        variable.assign(rng.normal(0.0, 0.3, variable.shape).astype(variable.dtype))
    trainer = PretrainingTrainer(model, optimizer, strategy, str(output_dir), BATCH,
                                 steps_per_loop=1, save_checkpoints_steps=100, verbose=False,
                                 nsp_loss_weight=0.0, budget=budget)
    return trainer, model


def read_log(output_dir):
    return [json.loads(line) for line in (output_dir / "train_log.jsonl").read_text().splitlines()]


def test_token_budget_ends_training_and_the_rate_follows_the_tokens_spent(records, tmp_path):
    tokens = tokens_per_batch(records, 6)
    # The budget ends half-way through the 5th batch: 5 steps run, the 6th does not.
    amount = sum(tokens[:4]) + 0.5 * tokens[4]
    trainer, _ = budget_trainer(tmp_path, Budget(amount, "tokens"))
    trainer.train(dataset_fn(records))
    log = read_log(tmp_path)
    assert [entry["step"] for entry in log] == [1, 2, 3, 4, 5]
    # Step k trains at the rate of the tokens spent before it.
    spent_before = np.cumsum([0.0] + tokens[:4])
    assert [e["lr"] for e in log] == pytest.approx(
        [expected_rate(s / amount) for s in spent_before], rel=1e-5)
    assert log[-1]["budget_spent"] == pytest.approx(sum(tokens[:5]) / amount)
    assert trainer.budget_spent() >= 1.0
    # The end of the budget is checkpointed although save_checkpoints_steps is 100.
    assert (tmp_path / "ckpt-5.index").exists()
    # A second call has nothing left to spend.
    assert trainer.train(dataset_fn(records)) == {}


def test_token_budget_resumes_to_the_same_weights(records, tmp_path):
    tokens = tokens_per_batch(records, 5)
    budget = Budget(sum(tokens[:4]) - 1.0, "tokens")  # 4 steps
    whole, whole_model = budget_trainer(tmp_path / "whole", budget)
    whole.train(dataset_fn(records))
    part, _ = budget_trainer(tmp_path / "part", budget)
    part.train(dataset_fn(records), num_train_steps=2)  # stopped after 2 steps
    assert int(part.global_step.numpy()) == 2 and part.budget_spent() < 1.0
    resumed, resumed_model = budget_trainer(tmp_path / "part", budget)  # a new process's view
    resumed.train(dataset_fn(records))
    assert int(resumed.global_step.numpy()) == int(whole.global_step.numpy()) == 4
    assert resumed.budget_spent() == whole.budget_spent()
    for a, b in zip(whole_model.weights, resumed_model.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=a.path)


@pytest.mark.large
def test_time_budget_stops_at_the_first_step_past_it(records, tmp_path):
    seconds = 10.0
    trainer, _ = budget_trainer(tmp_path, Budget(seconds, "seconds"))
    start = time.time()
    # One step first: tracing it takes seconds on a busy machine, and the steps after it are
    # what the schedule is checked on. The second call resumes the budget where the first
    # stopped (its checkpoint holds the seconds spent).
    trainer.train(dataset_fn(records), num_train_steps=1)
    assert trainer.budget_spent() < 0.6, "tracing one step took most of the budget"
    trainer.train(dataset_fn(records))
    took = time.time() - start
    log = read_log(tmp_path)
    assert took >= seconds
    assert [e["step"] for e in log] == list(range(1, len(log) + 1))
    spent = [e["budget_spent"] for e in log]
    # No step starts once the budget is spent; the last may end past it, or the budget may run
    # out after it, in the loop's bookkeeping.
    assert trainer.budget_spent() >= 1.0 and max(spent[:-1]) < 1.0 and spent == sorted(spent)
    assert len(log) >= 3, "tracing took the whole budget: too little left to test the schedule"
    # Step k ran at the rate of the time spent before it, which lies between what the log shows
    # after steps k-1 and k; past the warm-up the rate falls with it.
    for before, entry in zip(log, log[1:]):
        if before["budget_spent"] >= WARMUP:
            high = expected_rate(before["budget_spent"])
            low = expected_rate(entry["budget_spent"])
            # Tolerance: 1e-4 of the budget (0.6 ms) for float32 progress and the loop's two
            # clocks (Python's and tf.timestamp).
            tolerance = PEAK * 1e-4 / (1 - WARMUP)
            assert low - tolerance <= entry["lr"] <= high + tolerance, (before, entry)
    assert (tmp_path / f"ckpt-{len(log)}.index").exists()


def test_budget_needs_the_budget_schedule(tmp_path):
    strategy = get_distribution_strategy("one_device")
    with strategy.scope():
        model = BertPretrainer(BertEncoder(**train_worker.CONFIG))
        optimizer = create_optimizer(model, 1e-3, 100, 10)
    with pytest.raises(ValueError, match="needs the optimizer's learning rate to be a BudgetSchedule"):
        PretrainingTrainer(model, optimizer, strategy, str(tmp_path), BATCH,
                           budget=Budget(60, "seconds"))
