"""`model.fit` for a fixed step budget on any Keras backend: resumable checkpoints, periodic evaluation, the best checkpoint."""

import json
import math
import os
import sys
import time

import keras

from keras_bert.api_export import keras_bert_export
from keras_bert.atomic_files import atomic_open
from keras_bert.checkpoints import run_folder
from keras_bert.tensorflow_extra import has_tensorflow
from keras_bert.training import training_state


@keras_bert_export("keras_bert.training.Finetuner")
class Finetuner:
    """Fine-tunes a compiled task model with `model.fit`, resumably, keeping the best checkpoint.

    Training is `num_train_steps` optimizer steps over an endless (repeated) dataset, shown as
    `ceil(num_train_steps / steps_per_loop)` Keras "epochs" of `steps_per_loop` steps, each
    with a progress bar. After every loop the model, the optimizer and the dropout layers'
    random state are saved in `<output_dir>/checkpoints/ckpt-<step>.npz` (`training_state`:
    any backend writes and reads them); running the same command again resumes there (same
    step, same data position, same learning-rate schedule, same dropout masks). At every
    multiple of `eval_every_steps` (an epoch, say, wherever it falls in a loop) and at the end,
    `evaluate_fn(model)` scores the model; when `metrics[monitor]` improves, the weights are
    written to `<output_dir>/best/` with `bert_config.json`: google-research's
    `bert_model.ckpt` where TensorFlow is installed, else a Hugging Face folder
    (`model.safetensors`, `config.json`). `init_checkpoint` and the eval-only modes read either.
    Without `evaluate_fn`, the final weights are the best.

    Args:
        model: a compiled `BertTask`.
        output_dir: str.
        num_train_steps: int.
        steps_per_loop: int, steps per progress bar / checkpoint. Defaults to 100.
        evaluate_fn: optional callable `model -> dict of metrics`.
        monitor: str, the metric to maximise. Required with `evaluate_fn`.
        eval_every_steps: optional int; defaults to evaluating at the end only.
        is_chief: bool, whether this process writes files (multi-worker: one does).
        percent_scores: optional callable `metrics -> {name: percent}` (a task's
            `percent_scores`): the monitor is printed in percent, 2 decimals. Default: as is.
    """

    def __init__(
        self,
        model,
        output_dir,
        num_train_steps,
        steps_per_loop=100,
        evaluate_fn=None,
        monitor=None,
        eval_every_steps=None,
        is_chief=True,
        percent_scores=None,
    ):
        if num_train_steps < 1:
            raise ValueError(f"num_train_steps must be >= 1, got {num_train_steps}.")
        if evaluate_fn is not None and not monitor:
            raise ValueError("Pass `monitor` (the metric to maximise) with `evaluate_fn`.")
        self.model = model
        self.output_dir = output_dir
        self.num_train_steps = num_train_steps
        self.steps_per_loop = max(1, min(steps_per_loop, num_train_steps))
        self.evaluate_fn = evaluate_fn
        self.monitor = monitor
        self.eval_every_steps = eval_every_steps
        self.is_chief = is_chief
        self.percent_scores = percent_scores
        self.checkpoints_dir = run_folder.training_checkpoints_dir(output_dir)
        self.history_path = os.path.join(output_dir, "eval_history.jsonl")
        self._generator_state = None  # PyTorch's, set at the first step of a resumed run
        if is_chief:
            os.makedirs(output_dir, exist_ok=True)

    @property
    def step(self):
        return int(keras.ops.convert_to_numpy(self.model.optimizer.iterations))

    @property
    def best_checkpoint(self):
        """The best weights' TF1 checkpoint prefix (where TensorFlow is installed)."""
        return os.path.join(run_folder.best_dir(self.output_dir), run_folder.BEST_CHECKPOINT)

    def best_metrics(self):
        """The metrics of the best checkpoint so far (`None` before the first evaluation)."""
        path = run_folder.best_metrics_file(self.output_dir)
        if not os.path.exists(path):
            return None
        with open(path) as f:
            return json.load(f)

    def load_best(self):
        """Loads the best checkpoint's weights (heads included) into the model."""
        from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint

        load_init_checkpoint(self.model, run_folder.best_dir(self.output_dir), require_heads=True)

    def restore(self):
        """Restores the latest training checkpoint; returns the step it was at (0 if none)."""
        latest = training_state.latest_training_state(self.checkpoints_dir)
        legacy = None if latest else _tensorflow_checkpoint(self.checkpoints_dir)
        if latest is None and legacy is None:
            return 0
        if not self.model.optimizer.built:
            # Optimizer slots live where the model's variables do: under the tf.distribute
            # strategy the model was built in (the CLIs' one_device / mirrored / tpu), if any.
            with _strategy_scope(self.model):
                self.model.optimizer.build(self.model.trainable_variables)
        if legacy:
            _restore_tensorflow_checkpoint(self.model, legacy)
        else:
            self._generator_state = training_state.restore_training_state(self.model, latest)
        return self.step

    def save_checkpoint(self, step=None):
        """Writes the training checkpoint of `step` (default: the optimizer's step count)."""
        return training_state.save_training_state(
            self.model, self.checkpoints_dir, self.step if step is None else step)

    def fit(self, dataset, verbose="auto", callbacks=()):
        """Trains up to `num_train_steps` on `dataset`: a `LengthGroupedBatches` (any backend)
        or a repeated `tf.data.Dataset` in a deterministic order.

        `callbacks`: more Keras callbacks (e.g. `keras.callbacks.TensorBoard`).

        Returns the final metrics of `evaluate_fn` (or the last training logs without one).
        """
        start_step = self.restore()
        self._forget_evaluations_after(start_step)
        if start_step >= self.num_train_steps:
            print(f"Training already done ({start_step} steps in {self.output_dir}).")
            return self.best_metrics() or {}
        if verbose == "auto":
            verbose = 1 if sys.stdout.isatty() else 2
        loops = math.ceil(self.num_train_steps / self.steps_per_loop)
        callback = _LoopEnd(self, start_step)
        # Resume at the data position of the checkpoint.
        resumed = dataset.from_step(start_step) if hasattr(dataset, "from_step") \
            else dataset.skip(start_step)
        self.model.fit(
            resumed,
            epochs=loops,
            initial_epoch=start_step // self.steps_per_loop,
            steps_per_epoch=self.steps_per_loop,
            callbacks=[callback, *callbacks],
            shuffle=False,  # the batches are in a seeded order already
            verbose=verbose if self.is_chief else 0,
        )
        if self.evaluate_fn is None:
            self._save_best({"step": self.step, **callback.last_logs})
            return callback.last_logs
        return callback.last_metrics

    def _forget_evaluations_after(self, step):
        """Drops eval_history lines past `step`: a run stopped after an evaluation but before
        its checkpoint repeats that stretch, and its evaluations would be listed twice."""
        if not self.is_chief or not os.path.exists(self.history_path):
            return
        with open(self.history_path) as f:
            lines = [line for line in f if line.strip()]
        kept = [line for line in lines if json.loads(line)["step"] <= step]
        if len(kept) < len(lines):
            with atomic_open(self.history_path) as f:
                f.writelines(kept)

    def _evaluate(self, step, logs):
        start = time.time()
        metrics = {"step": step, **self.evaluate_fn(self.model)}
        metrics["eval_seconds"] = round(time.time() - start, 1)
        metrics.update({f"train_{k}": float(v) for k, v in logs.items()})
        if not self.is_chief:
            return metrics
        with open(self.history_path, "a") as f:
            f.write(json.dumps(metrics) + "\n")
        best = self.best_metrics()
        improved = best is None or metrics[self.monitor] > best[self.monitor]
        if improved:
            self._save_best(metrics)
        print(
            f"step {metrics['step']}: {self.monitor} {self._shown(metrics)}"
            + (" (best so far, saved)" if improved else f" (best {self._shown(best)})")
        )
        return metrics

    def _shown(self, metrics):
        """The monitor's value as printed: percent with 2 decimals when the task says which."""
        percent = self.percent_scores(metrics) if self.percent_scores else {}
        if self.monitor in percent:
            return f"{percent[self.monitor]:.2f}%"
        return f"{metrics[self.monitor]:.4g}"

    def _save_best(self, metrics):
        if not self.is_chief:
            return
        folder = run_folder.best_dir(self.output_dir)
        if has_tensorflow():
            from keras_bert.checkpoints.tf1_checkpoint import save_tf1_checkpoint

            save_tf1_checkpoint(self.model, self.best_checkpoint)
        else:
            from keras_bert.checkpoints.hf_checkpoint import save_hf_checkpoint

            save_hf_checkpoint(self.model, folder)
            self.model.encoder.bert_config.to_json_file(
                os.path.join(folder, run_folder.CONFIG_FILE))
        with atomic_open(run_folder.best_metrics_file(self.output_dir)) as f:
            json.dump(metrics, f, indent=1)


def _tensorflow_checkpoint(directory):
    """The latest `tf.train.Checkpoint` in `directory` (runs of keras_bert before training
    checkpoints became backend-neutral .npz files), or None."""
    if keras.config.backend() != "tensorflow" or not os.path.isdir(directory):
        return None
    import tensorflow as tf

    return tf.train.latest_checkpoint(directory)


def _restore_tensorflow_checkpoint(model, path):
    """Resumes from an older run's `tf.train.Checkpoint` (with the dropout state if it has it)."""
    import tensorflow as tf

    from keras_bert.training.random_states import random_states

    if any(name.startswith("random_states/") for name, _ in tf.train.list_variables(path)):
        tf.train.Checkpoint(model=model, optimizer=model.optimizer,
                            random_states=random_states(model)).restore(
            path).assert_existing_objects_matched()
        return
    tf.train.Checkpoint(model=model, optimizer=model.optimizer).restore(
        path).assert_existing_objects_matched()
    print(f"{path} has no dropout random state (an older checkpoint): the run resumes, "
          "with other dropout masks than an uninterrupted run would draw.")


def _strategy_scope(model):
    """The tf.distribute scope `model` was built under (TensorFlow), else a no-op."""
    import contextlib

    strategy = getattr(model, "distribute_strategy", None)
    return strategy.scope() if strategy is not None else contextlib.nullcontext()


class _LoopEnd(keras.callbacks.Callback):
    """Stops at the step budget, evaluates at exact multiples of `eval_every_steps` (and at the
    end), checkpoints at loop ends. Counts steps itself: on JAX the model's variables (the
    optimizer's step among them) are only brought up to date at loop ends or on request."""

    def __init__(self, finetuner, start_step):
        super().__init__()
        self.finetuner = finetuner
        self.steps = start_step
        self.last_logs = {}
        self.last_metrics = None

    def on_train_batch_begin(self, batch, logs=None):
        f = self.finetuner
        if f._generator_state is not None:
            training_state.set_generator_state(f._generator_state)
            f._generator_state = None

    def on_train_batch_end(self, batch, logs=None):
        f = self.finetuner
        self.steps += 1
        done = self.steps >= f.num_train_steps
        if done:
            self.model.stop_training = True
        due = f.eval_every_steps and self.steps % f.eval_every_steps == 0
        if f.evaluate_fn is not None and (done or due):
            if hasattr(self.model, "jax_state_sync"):
                self.model.jax_state_sync()  # the evaluation reads the current weights
            logs = {k: float(v) for k, v in (logs or {}).items()}
            self.last_metrics = f._evaluate(self.steps, logs)

    def on_epoch_end(self, epoch, logs=None):
        f = self.finetuner
        self.last_logs = {k: float(v) for k, v in (logs or {}).items()}
        if f.is_chief:
            f.save_checkpoint()
