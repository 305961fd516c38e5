"""The BERT optimizers: AdamW (weight decay off LayerNorm and biases) or LAMB, on the BERT schedule."""

import keras

from keras_bert.api_export import keras_bert_export
from keras_bert.training.warmup_linear_decay import WarmupLinearDecay

OPTIMIZERS = ("adamw", "lamb")


def decay_exempt_variables(model):
    """LayerNorm scales/offsets and all biases: BERT applies no weight decay to them."""
    return [
        v
        for v in model.trainable_variables
        if "layer_norm" in v.path or "bias" in v.name
    ]


@keras_bert_export("keras_bert.training.create_optimizer")
def create_optimizer(
    model,
    learning_rate,
    num_train_steps,
    num_warmup_steps=0,
    optimizer="adamw",
    weight_decay_rate=0.01,
    global_clipnorm=None,
):
    """The BERT recipe's optimizer for `model`: decoupled weight decay, warmup then linear decay.

    - `adamw`: Adam with beta_1 0.9, beta_2 0.999, epsilon 1e-6 and decoupled weight decay
      (`weight_decay_rate`), as google-research/bert's `AdamWeightDecayOptimizer`; Keras' AdamW
      also bias-corrects the moments, which only changes the first few hundred steps.
    - `lamb`: layer-wise adaptive moments (You et al. 2019) for large batches, same schedule.
    LayerNorm parameters and biases get no weight decay in both. Gradient clipping (global norm
    1.0) is done by the pretraining loop on the all-reduced gradient; `model.fit` users (the
    fine-tuning tools) pass `global_clipnorm=1.0` instead.

    Args:
        model: the Keras model to be trained (its variables pick the decay exemptions).
        learning_rate: float, peak learning rate of `WarmupLinearDecay`; or a
            `LearningRateSchedule` to use instead (`BudgetSchedule`: the step counts are then
            not used).
        num_train_steps, num_warmup_steps: int, for `WarmupLinearDecay`.
        optimizer: `"adamw"` or `"lamb"`.
        weight_decay_rate: float, defaults to 0.01.
        global_clipnorm: optional float, clip the gradient to this global norm.

    Returns:
        A `keras.optimizers.Optimizer`.
    """
    if isinstance(learning_rate, keras.optimizers.schedules.LearningRateSchedule):
        schedule = learning_rate
    else:
        schedule = WarmupLinearDecay(learning_rate, num_train_steps, num_warmup_steps)
    if optimizer == "adamw":
        result = keras.optimizers.AdamW(
            learning_rate=schedule,
            weight_decay=weight_decay_rate,
            beta_1=0.9,
            beta_2=0.999,
            epsilon=1e-6,
            global_clipnorm=global_clipnorm,
        )
    elif optimizer == "lamb":
        result = keras.optimizers.Lamb(
            learning_rate=schedule,
            weight_decay=weight_decay_rate,
            beta_1=0.9,
            beta_2=0.999,
            epsilon=1e-6,
            global_clipnorm=global_clipnorm,
        )
    else:
        raise ValueError(f"Unknown optimizer {optimizer!r}; use one of {OPTIMIZERS}.")
    result.exclude_from_weight_decay(var_list=decay_exempt_variables(model))
    return result
