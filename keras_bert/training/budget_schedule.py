"""A learning-rate schedule over a training budget (hours or tokens) instead of a step count."""

import dataclasses

import keras
from keras import ops

from keras_bert.api_export import keras_bert_export

BUDGET_UNITS = ("seconds", "tokens")


@keras_bert_export("keras_bert.training.Budget")
@dataclasses.dataclass(frozen=True)
class Budget:
    """What a budgeted run may spend: wall-clock `seconds` of training, or `tokens` seen.

    Seconds count everything from the start of `PretrainingTrainer.train` (input start-up,
    tracing, checkpoints), summed over resumed runs; a resumed run redoes, and counts again,
    the steps after its last checkpoint. Tokens are the real (non-padding) input positions of
    every batch trained on: a token budget is deterministic, so a resumed run ends bit for bit
    where an uninterrupted one ends; a time budget ends where the machine's speed puts it.
    """

    amount: float
    unit: str = "seconds"

    def __post_init__(self):
        if self.unit not in BUDGET_UNITS:
            raise ValueError(f"Budget unit {self.unit!r}: use one of {BUDGET_UNITS}.")
        if not self.amount > 0:
            raise ValueError(f"A budget of {self.amount} {self.unit}: it must be positive.")

    def describe(self):
        if self.unit == "seconds":
            return f"{self.amount / 3600:.4g} h"
        return f"{self.amount / 1e6:.4g} M tokens"


@keras_bert_export("keras_bert.training.BudgetSchedule")
class BudgetSchedule(keras.optimizers.schedules.LearningRateSchedule):
    """Linear warmup, then linear decay to zero, over the fraction of a budget spent.

    On a fixed budget the number of steps is not known in advance (it is what the machine
    manages in the hours given), so BERT's step schedule either stops before its rate reaches
    zero or ends early. This rate is a function of `progress`, the fraction of the budget spent,
    which the training loop sets before every step (`PretrainingTrainer(budget=...)`); the rate
    is zero when the budget ends, however fast the steps ran (the budget-triggered schedule of
    Geiping & Goldstein 2022, "Cramming"):

    - `learning_rate * progress / warmup_fraction` while `progress < warmup_fraction`,
    - `learning_rate * (1 - progress) / (1 - warmup_fraction)` after, never below 0.

    The optimizer's step argument is ignored.

    Args:
        learning_rate: float, the peak rate.
        warmup_fraction: float in `[0, 1)`, the share of the budget spent warming up.

    Example:
    >>> schedule = keras_bert.training.BudgetSchedule(1e-3, warmup_fraction=0.2)
    >>> rates = []
    >>> for progress in (0.0, 0.1, 0.2, 0.6, 1.0, 1.5):
    ...     _ = schedule.progress.assign(progress)
    ...     rates.append(round(float(schedule(0)), 7))
    >>> rates
    [0.0, 0.0005, 0.001, 0.0005, 0.0, 0.0]
    """

    def __init__(self, learning_rate, warmup_fraction=0.0):
        if not learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, got {learning_rate}.")
        if not 0 <= warmup_fraction < 1:
            raise ValueError(f"warmup_fraction must be in [0, 1), got {warmup_fraction}.")
        self.learning_rate = learning_rate
        self.warmup_fraction = warmup_fraction
        # Set by the training loop (outside any replica); not a weight and not checkpointed:
        # the loop recomputes it from the budget spent, which it checkpoints.
        self.progress = keras.Variable(
            0.0, dtype="float32", trainable=False, name="budget_progress",
            aggregation="only_first_replica",
        )

    def __call__(self, step):
        del step  # the budget, not the step count, drives the rate
        progress = ops.convert_to_tensor(self.progress)
        decayed = ops.maximum(0.0, 1.0 - progress) / (1.0 - self.warmup_fraction)
        if not self.warmup_fraction:
            return self.learning_rate * ops.minimum(decayed, 1.0)
        warmup = progress / self.warmup_fraction
        return self.learning_rate * ops.where(progress < self.warmup_fraction, warmup, decayed)

    def get_config(self):
        return {"learning_rate": self.learning_rate, "warmup_fraction": self.warmup_fraction}
