"""BERT's learning-rate schedule: linear warmup to the peak, then linear decay to zero."""

import keras

from keras_bert.api_export import keras_bert_export


@keras_bert_export("keras_bert.training.WarmupLinearDecay")
class WarmupLinearDecay(keras.optimizers.schedules.LearningRateSchedule):
    """Linear warmup over `num_warmup_steps`, then linear decay to 0 at `num_train_steps`.

    google-research/bert's `optimization.py` schedule: during warmup the rate is
    `learning_rate * step / num_warmup_steps`; afterwards
    `learning_rate * (1 - step / num_train_steps)` (polynomial decay of power 1), never below 0.

    Args:
        learning_rate: float, the peak rate.
        num_train_steps: int, the step where the rate reaches 0.
        num_warmup_steps: int, defaults to 0.

    Example:
    >>> schedule = keras_bert.training.WarmupLinearDecay(1e-4, num_train_steps=100,
    ...     num_warmup_steps=10)
    >>> [round(float(schedule(step)), 7) for step in (0, 5, 10, 55, 100)]
    [0.0, 5e-05, 9e-05, 4.5e-05, 0.0]
    """

    def __init__(self, learning_rate, num_train_steps, num_warmup_steps=0):
        if num_train_steps < 1:
            raise ValueError(f"num_train_steps must be >= 1, got {num_train_steps}.")
        if not 0 <= num_warmup_steps <= num_train_steps:
            raise ValueError(
                f"num_warmup_steps must be in [0, num_train_steps={num_train_steps}], got "
                f"{num_warmup_steps}."
            )
        self.learning_rate = learning_rate
        self.num_train_steps = num_train_steps
        self.num_warmup_steps = num_warmup_steps

    def __call__(self, step):
        step = keras.ops.cast(step, "float32")
        decayed = self.learning_rate * keras.ops.maximum(0.0, 1.0 - step / self.num_train_steps)
        if not self.num_warmup_steps:
            return decayed
        warmup = self.learning_rate * step / self.num_warmup_steps
        return keras.ops.where(step < self.num_warmup_steps, warmup, decayed)

    def get_config(self):
        return {
            "learning_rate": self.learning_rate,
            "num_train_steps": self.num_train_steps,
            "num_warmup_steps": self.num_warmup_steps,
        }
