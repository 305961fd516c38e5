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
    xla_update=True,
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
        xla_update: bool, on the TensorFlow backend run the update of the weights (clipping,
            decay, moments) as one XLA computation (`update_with_xla`) even when the model's
            step is not XLA-compiled: the same update (to 1e-5 after three steps, tested) in
            fewer passes over memory.

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
    return update_with_xla(result) if xla_update else result


def update_with_xla(optimizer):
    """Makes `optimizer` apply its gradients (clipping, weight decay, the moments and the weight
    updates) as one XLA computation, on the TensorFlow backend; returns it.

    Off XLA, which is the fast path for bf16 on a CPU (XLA's CPU backend does not reach the
    bf16 units, docs/benchmarks.md), AdamW's update is a dozen elementwise TensorFlow ops per
    weight, each a pass over that weight's memory; XLA fuses them into about one. On BERT-base
    (seq 128, batch 8, bf16, 2-core AMD EPYC Zen 4) the `train_on_batch` step went from
    2.03-2.08 s to 1.86-1.96 s. When the whole step is XLA-compiled already, the update is
    inlined into it as before. Under a `tf.distribute` strategy (replicas merge their updates
    outside any one computation) and on other backends nothing changes.
    """
    if keras.backend.backend() != "tensorflow":
        return optimizer
    import tensorflow as tf

    plain = optimizer._backend_apply_gradients
    compiled = {}  # one XLA function per list of variables (the model's, in practice)

    def apply_gradients(grads, trainable_variables):
        if tf.distribute.has_strategy():
            return plain(grads, trainable_variables)
        variables = list(trainable_variables)
        key = tuple(id(v) for v in variables)  # the closure keeps them alive: ids stay theirs
        if key not in compiled:
            compiled[key] = tf.function(
                lambda gradients: plain(gradients, variables), jit_compile=True, autograph=False)
        compiled[key](list(grads))

    optimizer._backend_apply_gradients = apply_gradients
    return optimizer
