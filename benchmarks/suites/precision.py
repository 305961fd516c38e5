"""Precision and compilation: the span-head train step and the forward pass, float32 vs bf16, XLA
vs TensorFlow's (oneDNN) graph, for keras_bert, keras-hub and HF PyTorch on the same weights.

Keras candidates train through `model.compile(...)` + `train_on_batch`, the path of the
fine-tuning tools and of `fit` users: BERT's AdamW with warmup, decay and clipping
(`create_optimizer`), the mean of the start and end cross-entropies. The reference is the step
the package took by default before it chose precision per machine: float32, XLA. "default"
marks what `--dtype_policy=auto` and the per-precision `jit_compile` choose on this machine.
PyTorch runs eagerly in float32 and under `torch.autocast("cpu", dtype=torch.bfloat16)`, and,
with `--torch_compile`, the autocast step through `torch.compile`.

The train case also times a 2048x2048 matmul in float32 and bf16 on each path, so a step's
gain can be read against the hardware's. The inference case times the same models' forward pass (a `tf.function`, XLA or not; PyTorch
under `no_grad`) at the same batch.
"""

import numpy as np

from benchmarks import configs, hf_models, models, training_steps
from benchmarks.harness import interleaved
from benchmarks.matmul_rate import bf16_matmul_candidates, is_matmul, matmul_candidates

# Span-head batches: SQuAD-shaped (question + passage), full length.
BATCH_SIZES = {"tiny": 4, "mini": 32, "minilm": 16, "base": 8}
POLICIES = ("float32", "mixed_bfloat16")
SHORT = {"float32": "float32", "mixed_bfloat16": "bf16"}


def span_batch(vocab_size, batch_size, seq_length, seed=0):
    """`(inputs, labels)`: a 1/4 question, 3/4 passage batch with random answer positions."""
    rng = np.random.default_rng(seed)
    shape = (batch_size, seq_length)
    segment_ids = np.zeros(shape, np.int32)
    segment_ids[:, seq_length // 4:] = 1
    inputs = {
        "token_ids": rng.integers(1000 % vocab_size, vocab_size, shape).astype(np.int32),
        "segment_ids": segment_ids,
        "padding_mask": np.ones(shape, np.int32),
    }
    start = rng.integers(seq_length // 4, seq_length - 8, batch_size)
    labels = {"start_logits": start.astype(np.int32),
              "end_logits": (start + rng.integers(0, 8, batch_size)).astype(np.int32)}
    return inputs, labels


def _path_name(policy, xla):
    """`float32_xla`, `float32`, `bf16_xla` or `bf16`: a (precision, compilation) path."""
    return SHORT[policy] + ("_xla" if xla else "")


PATHS = tuple(_path_name(p, x) for p in POLICIES for x in (True, False))


def _with_policy(policy, build):
    """Runs `build()` with Keras's global dtype policy set to `policy` (keras-hub's backbone
    takes the global policy), restoring the previous one."""
    import keras

    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy(policy)
    try:
        return build()
    finally:
        keras.config.set_dtype_policy(previous)


def _keras_models(config, policy, weights_from=None):
    """keras_bert's `BertQuestionAnswerer` and keras-hub's backbone + span head under `policy`,
    both holding the weights of the float32 keras_bert model `weights_from` (if given)."""
    import keras

    import keras_bert
    from keras_bert.checkpoints.keras_hub_checkpoint import encoder_to_keras_hub
    from keras_bert.models.bert_config import BertConfig

    def build():
        keras.utils.set_random_seed(0)
        ours = keras_bert.BertQuestionAnswerer(
            keras_bert.BertEncoder.from_bert_config(BertConfig(**config)))
        if weights_from is not None:
            ours.set_weights(weights_from.get_weights())
        hub = models.KerasHubSpanModel(encoder_to_keras_hub(ours.encoder))
        return ours, hub

    ours, hub = _with_policy(policy, build)
    # A careful keras-hub user's head under mixed precision: float32 logits, as Keras's mixed
    # precision guide says and as keras_bert's heads are.
    hub.span = keras.layers.Dense(2, dtype="float32")
    hub.span.build((None, None, config["hidden_size"]))
    hub.span.set_weights(ours.span_head.dense.get_weights())
    return ours, hub


def _compiled_step(model, jit_compile, inputs, labels):
    """`train_on_batch` of `model` compiled as the fine-tuning tools compile it."""
    import keras

    from keras_bert.training.optimizer import create_optimizer

    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(
        optimizer=create_optimizer(model, 5e-5, 10000, 1000, global_clipnorm=1.0),
        loss={"start_logits": loss, "end_logits": loss},
        loss_weights={"start_logits": 0.5, "end_logits": 0.5},
        jit_compile=jit_compile,
    )
    return lambda: model.train_on_batch(inputs, labels)


def _forward(model, jit_compile, inputs):
    import tensorflow as tf

    run = tf.function(lambda x: model(x, training=False), jit_compile=jit_compile)
    tensors = {k: tf.constant(v) for k, v in inputs.items()}
    return lambda: {k: v.numpy() for k, v in run(tensors).items()}


def _torch_candidates(hf, inputs, labels, batch_size, torch_compile):
    import torch

    step = training_steps.torch_train_step(hf, hf_models.hf_encoder_forward,
                                           training_steps.torch_span_loss)

    def autocast(fn):
        def run():
            with torch.autocast("cpu", dtype=torch.bfloat16):
                return fn()
        return run

    train = {
        "HF PyTorch float32": (lambda: step(inputs, labels), batch_size),
        "HF PyTorch bf16 autocast": (autocast(lambda: step(inputs, labels)), batch_size),
    }
    if torch_compile:
        compiled = torch.compile(hf)
        compiled_step = training_steps.torch_train_step(
            compiled, hf_models.hf_encoder_forward, training_steps.torch_span_loss)
        train["HF PyTorch bf16 autocast + torch.compile"] = (
            autocast(lambda: compiled_step(inputs, labels)), batch_size)
    tensors = {k: torch.from_numpy(v.astype(np.int64)) for k, v in inputs.items()}

    def forward():
        hf.eval()
        with torch.no_grad():
            out = hf_models.hf_encoder_forward(hf, tensors)
        hf.train()
        return out.start_logits.float().numpy()

    infer = {
        "HF PyTorch float32": (forward, batch_size),
        "HF PyTorch bf16 autocast": (autocast(forward), batch_size),
    }
    return train, infer


def _bf16_agreement(ours_by_policy, inputs):
    """Max |bf16 - float32| of keras_bert's start/end logits on the batch (inference)."""
    outputs = {p: m(inputs, training=False) for p, m in ours_by_policy.items()}
    return max(
        float(np.abs(np.asarray(outputs["mixed_bfloat16"][k], "float32")
                     - np.asarray(outputs["float32"][k])).max())
        for k in ("start_logits", "end_logits")
    )


def run(config_name, options, log=print):
    from keras_bert.training.precision import default_jit_compile
    from keras_bert.training.precision import describe_machine
    from keras_bert.training.precision import resolve_dtype_policy

    config = configs.bert_config(config_name)
    machine = describe_machine()
    default = resolve_dtype_policy("auto", machine, log=None)
    default_xla = default_jit_compile(default, machine)
    results = []
    for seq_length in options.seq_lengths:
        batch_size = options.batch_size or BATCH_SIZES[config_name]
        inputs, labels = span_batch(config["vocab_size"], batch_size, seq_length)
        log(f"precision {config_name} seq {seq_length}, batch {batch_size}: building models")
        # One model pair per (precision, XLA): a Keras model holds one compiled train function.
        # All hold the weights of the first (float32) pair; HF gets them too.
        pairs = {("float32", True): _keras_models(config, "float32")}
        source = pairs[("float32", True)][0]
        hf = hf_models.hf_model(config, "BertForQuestionAnswering", weights_from=source)
        parity = _float32_parity(*pairs[("float32", True)], hf, inputs)
        for policy in POLICIES:
            for xla in (True, False):
                if (policy, xla) not in pairs:
                    pairs[(policy, xla)] = _keras_models(config, policy, weights_from=source)
        agreement = _bf16_agreement(
            {p: pairs[(p, False)][0] for p in POLICIES}, inputs)

        def label(library, policy, xla):
            name = f"{library} {SHORT[policy]} {'XLA' if xla else 'no XLA'}"
            if library == "keras_bert" and policy == default and xla == default_xla:
                name += " (default)"
            if library == "keras_bert" and policy == "float32" and xla:
                name += " (default before)"
            return name

        train, infer = {}, {}
        for (policy, xla), (ours, hub) in pairs.items():
            for library, model in (("keras_bert", ours), ("keras-hub", hub)):
                if library == "keras-hub" and _path_name(policy, xla) not in options.keras_hub_paths:
                    continue
                train[label(library, policy, xla)] = (
                    _compiled_step(model, xla, inputs, labels), batch_size)
                infer[label(library, policy, xla)] = (_forward(model, xla, inputs), batch_size)
        # Only the candidates hold models now: keras-hub copies left out of --keras_hub_paths
        # are freed (at BERT-base, eight trained models do not fit in 24 GiB).
        pairs = None
        torch_train, torch_infer = _torch_candidates(
            hf, inputs, labels, batch_size, options.torch_compile)
        train.update(torch_train)
        infer.update(torch_infer)
        train.update(matmul_candidates())
        train.update(bf16_matmul_candidates())
        reference = label("keras_bert", "float32", True)
        notes = {
            "CPU": f"{machine['cpu']}; bf16 units: {', '.join(machine['bf16_units']) or 'none'}; "
                   f"accelerators: {', '.join(machine['accelerators']) or 'none'}",
            "default on this machine": f"{default}, {'XLA' if default_xla else 'no XLA'}",
            "float32 parity (keras_bert vs keras-hub / HF), max |diff| of logits": parity,
            "bf16 vs float32 start/end logits, max |diff|": f"{agreement:.3g}",
        }
        for case, candidates in (("train step", train), ("inference", infer)):
            timings = interleaved(candidates, rounds=options.rounds, warmup=options.warmup, log=log,
                                  settle_s=options.settle_s)
            for name, timing in timings.items():
                timing.unit = "GFLOP/s" if is_matmul(name) else "examples/s"
            results.append({
                "suite": "precision",
                "config": config_name,
                "case": f"{case}, span head, seq {seq_length}, batch {batch_size}",
                "reference": reference,
                "timings": [t.to_json() for t in timings.values()],
                "notes": notes,
            })
    return results


def _float32_parity(ours, hub, hf, inputs):
    import torch

    hf.eval()
    with torch.no_grad():
        out = hf_models.hf_encoder_forward(
            hf, {k: torch.from_numpy(v.astype(np.int64)) for k, v in inputs.items()})
    hf.train()
    outputs = {
        "keras_bert": {k: np.asarray(v) for k, v in ours(inputs, training=False).items()},
        "keras-hub": {k: np.asarray(v) for k, v in hub(inputs, training=False).items()},
        "HF PyTorch": {"start_logits": out.start_logits.numpy(),
                       "end_logits": out.end_logits.numpy()},
    }
    worst = models.check_same_outputs(outputs)
    return f"{max(worst.values()):.2g}"
