"""One optimizer step of a Keras model and of a PyTorch model, as zero-argument callables.

Both Keras candidates (keras_bert, keras-hub) go through the same `keras_train_step`, so the
ratio between them is the model code's alone; PyTorch gets the idiomatic eager step.
"""

import numpy as np


def keras_pretraining_loss(outputs, labels):
    """Mean masked-LM cross-entropy over the targets plus mean NSP cross-entropy."""
    from keras import ops

    mlm = ops.sparse_categorical_crossentropy(
        labels["masked_lm_ids"], outputs["mlm_logits"], from_logits=True
    )  # [B, P]
    weights = ops.cast(labels["masked_lm_weights"], mlm.dtype)
    nsp = ops.sparse_categorical_crossentropy(
        labels["next_sentence_labels"], outputs["nsp_logits"], from_logits=True
    )  # [B]
    return ops.sum(mlm * weights) / ops.maximum(ops.sum(weights), 1.0) + ops.mean(nsp)


def keras_train_step(model, loss_fn, jit_compile=True, learning_rate=1e-4):
    """`step(inputs, labels) -> loss`: one AdamW step of `model` on a batch of NumPy arrays.

    The forward and backward pass are one `tf.function` (XLA-compiled if `jit_compile`), the
    update another, as keras_bert's `PretrainingTrainer` does. Batches of new shapes retrace
    (and recompile, under XLA) once per shape.
    """
    import keras
    import tensorflow as tf

    optimizer = keras.optimizers.AdamW(learning_rate=learning_rate, weight_decay=0.01)
    variables = model.trainable_variables
    optimizer.build(variables)

    @tf.function(jit_compile=jit_compile, reduce_retracing=not jit_compile)
    def gradients(inputs, labels):
        with tf.GradientTape() as tape:
            loss = loss_fn(model(inputs, training=True), labels)
        grads = tape.gradient(loss, variables)
        # Zeros for weights the loss does not reach (the pooler under a span head).
        return [tf.zeros_like(v) if g is None else g for g, v in zip(grads, variables)], loss

    @tf.function(reduce_retracing=True)
    def step(inputs, labels):
        grads, loss = gradients(inputs, labels)
        optimizer.apply_gradients(zip(grads, variables))
        return loss

    return lambda inputs, labels: float(step(inputs, labels).numpy())


def keras_classification_loss(logits, labels):
    from keras import ops

    return ops.mean(ops.sparse_categorical_crossentropy(labels, logits, from_logits=True))


def keras_span_loss(outputs, labels):
    """Mean of the start and end cross-entropies, google-research/bert's run_squad loss."""
    return 0.5 * (
        keras_classification_loss(outputs["start_logits"], labels["start_logits"])
        + keras_classification_loss(outputs["end_logits"], labels["end_logits"])
    )


def torch_pretraining_loss(outputs, labels):
    import torch.nn.functional as F

    vocab = outputs["mlm_logits"].shape[-1]
    mlm = F.cross_entropy(
        outputs["mlm_logits"].reshape(-1, vocab), labels["masked_lm_ids"].reshape(-1),
        reduction="none",
    )
    weights = labels["masked_lm_weights"].reshape(-1)
    nsp = F.cross_entropy(outputs["nsp_logits"], labels["next_sentence_labels"])
    return (mlm * weights).sum() / weights.sum().clamp(min=1.0) + nsp


def torch_classification_loss(outputs, labels):
    import torch.nn.functional as F

    return F.cross_entropy(outputs.logits, labels)


def torch_span_loss(outputs, labels):
    import torch.nn.functional as F

    return 0.5 * (
        F.cross_entropy(outputs.start_logits, labels["start_logits"])
        + F.cross_entropy(outputs.end_logits, labels["end_logits"])
    )


def torch_autocast(dtype_policy):
    """The context PyTorch runs a candidate in under `dtype_policy`: `torch.autocast` to bf16
    on the CPU for `mixed_bfloat16` (PyTorch's own mixed precision), else nothing."""
    import contextlib

    import torch

    if dtype_policy == "mixed_bfloat16":
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def torch_train_step(model, forward, loss_fn, learning_rate=1e-4, dtype_policy="float32"):
    """`step(inputs, labels) -> loss`: one `torch.optim.AdamW` step of `model` (train mode),
    the forward pass and loss under `torch_autocast(dtype_policy)`."""
    import torch

    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.01)

    def tensor(value, key=""):
        value = np.asarray(value)
        return torch.from_numpy(value.astype(np.float32 if key.endswith("weights") else np.int64))

    def step(inputs, labels):
        inputs = {k: tensor(v) for k, v in inputs.items()}
        labels = ({k: tensor(v, k) for k, v in labels.items()} if isinstance(labels, dict)
                  else tensor(labels))
        optimizer.zero_grad(set_to_none=True)
        with torch_autocast(dtype_policy):
            loss = loss_fn(forward(model, inputs), labels)
        loss.backward()
        optimizer.step()
        return float(loss.detach())

    return step

