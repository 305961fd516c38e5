"""The distributed pretraining loop: exact global loss, clipping, accumulation, checkpoints, resume."""

import json
import os
import shutil
import time

import keras
import tensorflow as tf

from keras_bert.api_export import keras_bert_export
from keras_bert.training.budget_schedule import BudgetSchedule
from keras_bert.training.tf_distribute import per_replica_batch_size
from keras_bert.training.pretraining_loss import PretrainingSums
from keras_bert.training.pretraining_loss import pretraining_metrics
from keras_bert.training.pretraining_loss import pretraining_sums
from keras_bert.training.progress import progress_bar
from keras_bert.training.random_states import random_states


_TOKENS = PretrainingSums._fields.index("tokens")


def is_chief(strategy):
    """Whether this process writes checkpoints, summaries and logs (always, off multi-worker)."""
    resolver = getattr(strategy, "cluster_resolver", None)
    if resolver is None or not resolver.task_type:
        return True
    if resolver.task_type == "chief":
        return True
    has_chief = "chief" in resolver.cluster_spec().as_dict()
    return resolver.task_type == "worker" and resolver.task_id == 0 and not has_chief


@keras_bert_export("keras_bert.training.PretrainingTrainer")
class PretrainingTrainer:
    """Trains a `BertPretrainer` on masked-LM + NSP with a custom loop around `strategy.run`.

    A custom loop rather than `model.fit`, because Keras 3 `fit` fails under
    `MultiWorkerMirroredStrategy` (keras-team/keras#20585) and because exactness needs control of
    where gradients are reduced: each replica computes gradients of its share of the *global*
    loss (masked-LM sums divided by the global number of targets, NSP by the global batch), the
    gradients are summed over replicas and accumulation steps, clipped by their global norm
    (BERT: 1.0) and applied once. The result equals one device running the same global batch.
    The model stays an ordinary Keras model that can also be `fit` on one host.

    Args:
        model: a `BertPretrainer` built under `strategy.scope()`.
        optimizer: built under the same scope (`create_optimizer`); a
            `keras.optimizers.LossScaleOptimizer` for `mixed_float16`.
        strategy: a `tf.distribute.Strategy`.
        output_dir: str. Checkpoints (`ckpt-<step>`), TensorBoard summaries (`train/`),
            `train_log.jsonl` (one line of metrics per log interval) and, at the end, the
            google-format `bert_model.ckpt` + `bert_config.json`.
        train_batch_size: int, the global batch per optimizer step.
        gradient_accumulation_steps: int, micro-batches per step. Defaults to 1.
        save_checkpoints_steps: int. Defaults to 1000.
        steps_per_loop: int, steps per compiled loop call (between logs). Defaults to 10.
        clip_norm: float, global-norm clipping. Defaults to 1.0.
        nsp_loss_weight: float, the next-sentence loss's weight in the training loss (0 trains
            the token objective alone, as RoBERTa and every language model do). Defaults to 1.0.
        jit_compile: bool, XLA-compile the forward and backward pass. Defaults to `False`.
        max_checkpoints_to_keep: int. Defaults to 5.
        verbose: bool, show a progress bar (chief only). Defaults to `True`.
        budget: a `Budget` (seconds or tokens), or `None`. With a budget, `optimizer`'s
            learning rate must be a `BudgetSchedule`: before every step the loop sets its
            progress to the fraction of the budget spent, and training ends at the first step
            boundary where the budget is spent (its rate is zero there). The amount spent is
            checkpointed with the step, so a resumed run continues the same schedule.
    """

    def __init__(
        self,
        model,
        optimizer,
        strategy,
        output_dir,
        train_batch_size,
        gradient_accumulation_steps=1,
        save_checkpoints_steps=1000,
        steps_per_loop=10,
        clip_norm=1.0,
        nsp_loss_weight=1.0,
        jit_compile=False,
        max_checkpoints_to_keep=5,
        verbose=True,
        budget=None,
    ):
        not_in_scope = [
            v.path for v in model.variables if not strategy.extended.variable_created_in_scope(v.value)
        ]
        if not_in_scope:
            raise ValueError(
                f"The model's variables were not created under strategy.scope() (e.g. "
                f"{not_in_scope[0]}). Build the model and optimizer inside `with strategy.scope():`."
            )
        self.model = model
        self.optimizer = optimizer
        self.strategy = strategy
        self.output_dir = output_dir
        self.train_batch_size = train_batch_size
        self.accumulation_steps = gradient_accumulation_steps
        self.save_checkpoints_steps = save_checkpoints_steps
        self.steps_per_loop = steps_per_loop
        self.clip_norm = clip_norm
        self.nsp_loss_weight = float(nsp_loss_weight)
        self.verbose = verbose
        self.chief = is_chief(strategy)
        self.per_replica_batch_size = per_replica_batch_size(
            train_batch_size, strategy, gradient_accumulation_steps
        )
        self.budget = budget
        self.schedule = None
        if budget is not None:
            schedule = getattr(optimizer, "inner_optimizer", optimizer)._learning_rate
            if not isinstance(schedule, BudgetSchedule):
                raise ValueError(
                    f"A budget ({budget.describe()}) needs the optimizer's learning rate to be a "
                    f"BudgetSchedule, not {type(schedule).__name__}: pass "
                    "create_optimizer(model, BudgetSchedule(peak, warmup_fraction), ...)."
                )
            self.schedule = schedule

        with strategy.scope():
            self.global_step = tf.Variable(
                0, dtype=tf.int64, trainable=False, name="global_step",
                aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA,
            )
            # The optimizer is built here so its slots exist before a checkpoint is restored.
            optimizer.build(model.trainable_variables)
        budget_items = {}
        if budget is not None:
            with strategy.scope():
                # Seconds or tokens spent by the steps up to global_step.
                self.spent = tf.Variable(
                    0.0, dtype=tf.float64, trainable=False, name="budget_spent",
                    aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA,
                )
            budget_items["budget_spent"] = self.spent
        self.checkpoint = tf.train.Checkpoint(
            global_step=self.global_step,
            optimizer=optimizer,
            random_states=random_states(model),
            **budget_items,
            **model.checkpoint_items,
        )
        directory = output_dir if self.chief else os.path.join(
            output_dir, f"worker_tmp_{strategy.cluster_resolver.task_id}"
        )
        self.manager = tf.train.CheckpointManager(
            self.checkpoint, directory, max_to_keep=max_checkpoints_to_keep, checkpoint_name="ckpt"
        )
        self._gradients = tf.function(self._gradients_fn, jit_compile=jit_compile)
        self._train_loop = tf.function(self._train_loop_fn)
        self._eval_loop = tf.function(self._eval_loop_fn)

    # === Steps ===
    def _gradients_fn(self, inputs, labels, mlm_denominator, nsp_denominator):
        variables = self.model.trainable_variables
        with tf.GradientTape() as tape:
            outputs = self.model(inputs, training=True)
            sums = pretraining_sums(outputs, labels, inputs["padding_mask"])
            # This replica's share of the global mean loss.
            loss = sums.mlm_loss / mlm_denominator
            if self.nsp_loss_weight:
                loss += self.nsp_loss_weight * sums.nsp_loss / nsp_denominator
            scaled = self.optimizer.scale_loss(loss)
        gradients = tape.gradient(scaled, variables)
        # Zeros, not None, for weights the loss does not reach (the NSP head at weight 0).
        gradients = [
            tf.zeros_like(v.value) if g is None else tf.convert_to_tensor(g)
            for g, v in zip(gradients, variables)
        ]
        return gradients, tf.stack(list(sums))

    def _replica_step(self, inputs, labels):
        # inputs/labels carry a leading accumulation axis A: [A, b, ...].
        context = tf.distribute.get_replica_context()
        mlm_denominator = tf.maximum(
            context.all_reduce("sum", tf.reduce_sum(labels["masked_lm_weights"])), 1e-5
        )
        nsp_denominator = tf.constant(float(self.train_batch_size))
        variables = self.model.trainable_variables
        gradients = [tf.zeros_like(v) for v in variables]
        sums = tf.zeros([len(PretrainingSums._fields)])
        for i in tf.range(self.accumulation_steps):
            micro = tf.nest.map_structure(lambda t: t[i], (inputs, labels))
            step_gradients, step_sums = self._gradients(*micro, mlm_denominator, nsp_denominator)
            gradients = [a + b for a, b in zip(gradients, step_gradients)]
            sums += step_sums
        gradients = context.all_reduce("sum", gradients)
        # Clipping the (loss-scaled) global gradient by clip_norm * scale is clipping the true one.
        scale = getattr(self.optimizer, "dynamic_scale", 1.0)
        gradients, _ = tf.clip_by_global_norm(gradients, self.clip_norm * tf.cast(scale, tf.float32))
        # Keras optimizers sum gradients over replicas again; hand each replica 1/R of the total.
        replicas = float(self.strategy.num_replicas_in_sync)
        self.optimizer.apply_gradients([(g / replicas, v) for g, v in zip(gradients, variables)])
        return sums

    def _train_loop_fn(self, iterator, num_steps):
        totals = tf.zeros([len(PretrainingSums._fields)])
        amount = tf.constant(float(self.budget.amount if self.budget else 1.0), tf.float64)
        for _ in tf.range(num_steps):
            started = tf.constant(0.0, tf.float64)
            if self.budget is not None:
                if self.spent >= amount:
                    break
                set_rate = self.schedule.progress.assign(tf.cast(self.spent / amount, tf.float32))
                # Timestamps are not ordered by data: pin the step's start and end explicitly.
                with tf.control_dependencies([set_rate]):
                    started = tf.timestamp()
            with tf.control_dependencies([started]):
                inputs, labels = next(iterator)
            per_replica = self.strategy.run(self._replica_step, args=(inputs, labels))
            step_sums = self.strategy.reduce("sum", per_replica, axis=None)
            totals += step_sums
            counted = self.global_step.assign_add(1)  # after the update (program order)
            if self.budget is not None:
                if self.budget.unit == "tokens":
                    self.spent.assign_add(tf.cast(step_sums[_TOKENS], tf.float64))
                else:
                    with tf.control_dependencies([counted, step_sums]):
                        self.spent.assign_add(tf.timestamp() - started)
        return totals

    def _eval_replica_step(self, inputs, labels):
        outputs = self.model(inputs, training=False)
        return tf.stack(list(pretraining_sums(outputs, labels, inputs["padding_mask"])))

    def _eval_loop_fn(self, iterator, num_steps):
        totals = tf.zeros([len(PretrainingSums._fields)])
        for _ in tf.range(num_steps):
            optional = iterator.get_next_as_optional()
            if not optional.has_value():
                break
            inputs, labels = optional.get_value()
            per_replica = self.strategy.run(self._eval_replica_step, args=(inputs, labels))
            totals += self.strategy.reduce("sum", per_replica, axis=None)
        return totals

    # === Data ===
    def distribute(self, dataset_fn):
        """Distributed dataset from `dataset_fn(input_context, batch_size, start_batch)`.

        `dataset_fn` returns this pipeline's micro-batches of `batch_size` (per replica) and
        skips its first `start_batch` batches; the trainer groups them by accumulation step.
        """
        start_step = int(self.global_step.numpy())

        def fn(context):
            per_pipeline = self.strategy.num_replicas_in_sync // context.num_input_pipelines
            dataset = dataset_fn(
                context,
                self.per_replica_batch_size,
                start_step * self.accumulation_steps * per_pipeline,
            )
            # Consecutive micro-batches of one replica form its accumulation group [A, b, ...].
            return dataset.batch(self.accumulation_steps, drop_remainder=True)

        return self.strategy.distribute_datasets_from_function(fn)

    # === Checkpoints ===
    def restore(self, weights_only=False):
        """Restores the latest checkpoint in `output_dir`, if any. Returns the step reached.

        `weights_only`: the model's weights and the step, for evaluation; the optimizer, dropout
        and budget states are left out, so a run trained with another recipe or dropout rate can
        be scored (every weight of the model must still be in the checkpoint).
        """
        latest = tf.train.latest_checkpoint(self.output_dir)
        if latest and weights_only:
            tf.train.Checkpoint(global_step=self.global_step, **self.model.checkpoint_items).restore(
                latest).expect_partial().assert_existing_objects_matched()
        elif latest:
            self.checkpoint.restore(latest).assert_existing_objects_matched()
        return int(self.global_step.numpy())

    def save(self):
        self.manager.save(checkpoint_number=self.global_step)
        if not self.chief:  # other workers must write too (collectives); their copy is dropped
            shutil.rmtree(self.manager.directory, ignore_errors=True)

    # === Evaluation ===
    def evaluate(self, dataset_fn, max_eval_steps, batch_size=None):
        """Masked-LM and NSP loss and accuracy of the current weights (no dropout).

        `dataset_fn(input_context, batch_size)` returns this pipeline's finite evaluation
        dataset (`pretraining_dataset(..., is_training=False)`); at most `max_eval_steps` global
        batches of `batch_size` (default: the training batch) are read. Returns a dict of
        floats, with `"examples"`.
        """
        batch_size = batch_size or self.train_batch_size
        replicas = self.strategy.num_replicas_in_sync
        if batch_size % replicas:
            raise ValueError(
                f"batch_size={batch_size} must be divisible by the number of replicas ({replicas})."
            )
        dataset = self.strategy.distribute_datasets_from_function(
            lambda context: dataset_fn(context, batch_size // replicas)
        )
        totals = self._eval_loop(iter(dataset), tf.constant(max_eval_steps))
        sums = PretrainingSums(*(float(x) for x in totals.numpy()))
        return {**pretraining_metrics(sums), "examples": sums.examples}

    # === Training ===
    def budget_spent(self):
        """The fraction of the budget spent (0 without a budget)."""
        return float(self.spent.numpy()) / self.budget.amount if self.budget else 0.0

    def train(self, dataset_fn, num_train_steps=None):
        """Trains until `num_train_steps` or the end of the budget, whichever comes first
        (resuming from the latest checkpoint), and returns the metrics of the last log interval
        as a dict of floats. `num_train_steps` may be `None` with a budget."""
        if num_train_steps is None:
            if self.budget is None:
                raise ValueError("train() needs num_train_steps, or a trainer with a budget.")
            num_train_steps = 2**62
        step = self.restore()
        if step >= num_train_steps or self.budget_spent() >= 1.0:
            print(f"Already at step {step} (budget {self.budget_spent():.0%} spent, "
                  f"num_train_steps={num_train_steps}); nothing to do.")
            return {}
        iterator = iter(self.distribute(dataset_fn))
        writer = (
            tf.summary.create_file_writer(os.path.join(self.output_dir, "train"))
            if self.chief
            else tf.summary.create_noop_writer()
        )
        log_path = os.path.join(self.output_dir, "train_log.jsonl")
        if self.chief:
            _truncate_log(log_path, step)
        shown = ("loss", "mlm_accuracy", "nsp_accuracy", "tokens_per_s", "lr")
        if self.budget is not None:  # the bar counts per mille of the budget
            shown = ("step",) + shown
        bar = progress_bar(  # Keras's bar on a terminal, plain lines in a log
            1000 if self.budget else num_train_steps,
            stateful_metrics=shown,
            verbose=bool(self.verbose and self.chief),
            unit_name="\u2030 of budget" if self.budget else "step",
        )
        bar.update(self._bar_position(step))
        metrics = {}
        # A time budget counts from here: the spent seconds of the run resumed, plus this run's.
        started = time.time()
        spent_before = float(self.spent.numpy()) if self.budget else 0.0
        saved = step
        while step < num_train_steps:
            if self.budget is not None and self.budget.unit == "seconds":
                self.spent.assign(spent_before + time.time() - started)
            if self.budget_spent() >= 1.0:  # spent between loops (logging, a checkpoint)
                break
            to_checkpoint = self.save_checkpoints_steps - step % self.save_checkpoints_steps
            num_steps = min(self.steps_per_loop, num_train_steps - step, to_checkpoint)
            start = time.time()
            totals = self._train_loop(iterator, tf.constant(num_steps))
            sums = PretrainingSums(*(float(x) for x in totals.numpy()))
            elapsed = time.time() - start
            step = int(self.global_step.numpy())
            metrics = dict(pretraining_metrics(sums))
            metrics["tokens_per_s"] = sums.tokens / elapsed
            metrics["lr"] = float(self.optimizer.learning_rate)
            if self.budget is not None:
                metrics["budget_spent"] = self.budget_spent()
                metrics["step"] = step
            with writer.as_default(step=step):
                for name, value in metrics.items():
                    tf.summary.scalar(name, value)
            if self.chief:
                with open(log_path, "a") as f:
                    f.write(json.dumps({"step": step, "time": time.time(), **metrics}) + "\n")
            bar.update(self._bar_position(step), [(k, metrics[k]) for k in shown if k in metrics])
            if step % self.save_checkpoints_steps == 0 or step == num_train_steps:
                self.save()
                saved = step
        if saved != step:  # the budget ended between checkpoints
            self.save()
        writer.flush()
        return metrics

    def _bar_position(self, step):
        return min(1000, int(1000 * self.budget_spent())) if self.budget else step


def _truncate_log(log_path, step):
    """Drops log lines past `step`: a run killed between checkpoints repeats those steps."""
    if not os.path.exists(log_path):
        return
    with open(log_path) as f:
        lines = [line for line in f if line.strip()]
    kept = [line for line in lines if json.loads(line)["step"] <= step]
    if len(kept) != len(lines):
        with open(log_path, "w") as f:
            f.writelines(kept)
