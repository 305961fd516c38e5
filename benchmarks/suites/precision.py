"""Precision and compilation: the span-head train step and the forward pass, float32 vs bf16, XLA
vs TensorFlow's (oneDNN) graph, for keras_bert, keras-hub and HF PyTorch on the same weights.

Keras candidates train through `model.compile(...)` + `train_on_batch`, the path of the
fine-tuning tools and of `fit` users: BERT's AdamW with warmup, decay and clipping
(`create_optimizer`), the mean of the start and end cross-entropies. The reference is the step
the package took by default before it chose precision per machine: float32, XLA. "default"
marks what `--dtype_policy=auto` and the per-precision `jit_compile` choose on this machine.
PyTorch runs eagerly in float32 and under `torch.autocast("cpu", dtype=torch.bfloat16)`, and,
with `--torch_paths=...,bf16_compile`, the autocast step through `torch.compile`.

Each model candidate is built in a process of its own (`benchmarks.workers`, unless
`options.isolate` is off), as a user would train it: eight BERT-base trainers sharing one
TensorFlow runtime made keras_bert's bf16 step bimodal (docs/benchmarks.md).

The train case also times a 2048x2048 matmul (`options.matmul_size`) in float32 and bf16 on
each path, so a step's gain can be read against the hardware's. The inference case times the
same models' forward pass (a `tf.function`, XLA or not; PyTorch under `no_grad`) at the same
batch.
"""

import contextlib
import gc
import os
import tempfile

import numpy as np

from benchmarks import configs, hf_models, models, training_steps
from benchmarks.harness import interleaved
from benchmarks.matmul_rate import bf16_matmul_candidates, is_matmul, matmul_candidates
from benchmarks.workers import Worker, set_threads

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


def _keras_model(config, policy, library, weights=None):
    """keras_bert's `BertQuestionAnswerer` (`library="keras_bert"`) or keras-hub's backbone +
    span head (`"keras-hub"`) under `policy`, holding `weights` (the `get_weights()` of a
    keras_bert model of `config`) if given, else a seed-0 initialisation."""
    import keras

    import keras_bert
    from keras_bert.checkpoints.keras_hub_checkpoint import encoder_to_keras_hub
    from keras_bert.models.bert_config import BertConfig

    def build():
        keras.utils.set_random_seed(0)
        ours = keras_bert.BertQuestionAnswerer(
            keras_bert.BertEncoder.from_bert_config(BertConfig(**config)))
        if weights is not None:
            ours.set_weights(weights)
        if library == "keras_bert":
            return ours
        hub = models.KerasHubSpanModel(encoder_to_keras_hub(ours.encoder))
        # A careful keras-hub user's head under mixed precision: float32 logits, as Keras's
        # mixed precision guide says and as keras_bert's heads are.
        hub.span = keras.layers.Dense(2, dtype="float32")
        hub.span.build((None, None, config["hidden_size"]))
        hub.span.set_weights(ours.span_head.dense.get_weights())
        return hub

    return _with_policy(policy, build)


def _load_weights(path):
    with np.load(path) as arrays:
        return [arrays[f"arr_{i}"] for i in range(len(arrays.files))]


def _keras_cases(config, policy, xla, library, weights_path, inputs, labels, threads):
    """A Keras candidate's calls, `{"train step": ..., "inference": ...}`: its own model
    (`_keras_model`), compiled once for training and traced once for inference. A module-level
    function so that a `Worker` can build it in another process."""
    set_threads(threads, torch=False)
    model = _keras_model(config, policy, library, _load_weights(weights_path))
    return {"train step": _compiled_step(model, xla, inputs, labels),
            "inference": _forward(model, xla, inputs)}


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


TORCH_PATHS = ("float32", "bf16", "bf16_compile")
TORCH_NAMES = {"float32": "HF PyTorch float32", "bf16": "HF PyTorch bf16 autocast",
               "bf16_compile": "HF PyTorch bf16 autocast + torch.compile"}


def _torch_cases(config, path, weights_path, inputs, labels, threads):
    """HF PyTorch's calls on `path` (`TORCH_PATHS`) with the weights at `weights_path`: eager
    float32, eager under `torch.autocast("cpu", dtype=torch.bfloat16)`, or that through
    `torch.compile` (train step only)."""
    import torch

    set_threads(threads, tensorflow=False)
    source = _keras_model(config, "float32", "keras_bert", _load_weights(weights_path))
    hf = hf_models.hf_model(config, "BertForQuestionAnswering", weights_from=source)
    del source
    trained = torch.compile(hf) if path == "bf16_compile" else hf
    step = training_steps.torch_train_step(trained, hf_models.hf_encoder_forward,
                                           training_steps.torch_span_loss)
    tensors = {k: torch.from_numpy(v.astype(np.int64)) for k, v in inputs.items()}

    def forward():
        hf.eval()
        with torch.no_grad():
            out = hf_models.hf_encoder_forward(hf, tensors)
        hf.train()
        return out.start_logits.float().numpy()

    def precision(fn):
        if path == "float32":
            return fn

        def run():
            with torch.autocast("cpu", dtype=torch.bfloat16):
                return fn()
        return run

    cases = {"train step": precision(lambda: step(inputs, labels))}
    if path != "bf16_compile":
        cases["inference"] = precision(forward)
    return cases


def _bf16_agreement(ours_by_policy, inputs):
    """Max |bf16 - float32| of keras_bert's start/end logits on the batch (inference)."""
    outputs = {p: m(inputs, training=False) for p, m in ours_by_policy.items()}
    return max(
        float(np.abs(np.asarray(outputs["mixed_bfloat16"][k], "float32")
                     - np.asarray(outputs["float32"][k])).max())
        for k in ("start_logits", "end_logits")
    )


def _reference_weights(config, inputs, path):
    """Initialises the float32 keras_bert model every candidate copies, writes its weights to
    `path`, and checks it before any timing: float32 parity with keras-hub and HF on `inputs`,
    and how far its bf16 logits lie from its float32 ones. Returns both as note strings."""
    source = _keras_model(config, "float32", "keras_bert")
    weights = source.get_weights()
    np.savez(path, *weights)
    hub = _keras_model(config, "float32", "keras-hub", weights)
    hf = hf_models.hf_model(config, "BertForQuestionAnswering", weights_from=source)
    parity = _float32_parity(source, hub, hf, inputs)
    bf16 = _keras_model(config, "mixed_bfloat16", "keras_bert", weights)
    agreement = _bf16_agreement({"float32": source, "mixed_bfloat16": bf16}, inputs)
    return parity, f"{agreement:.3g}"


def run(config_name, options, log=print):
    from keras_bert.training.precision import default_jit_compile
    from keras_bert.training.precision import describe_machine
    from keras_bert.training.precision import resolve_dtype_policy

    config = configs.bert_config(config_name)
    machine = describe_machine()
    default = resolve_dtype_policy("auto", machine, log=None)
    default_xla = default_jit_compile(default, machine)

    def label(library, policy, xla):
        name = f"{library} {SHORT[policy]} {'XLA' if xla else 'no XLA'}"
        if library == "keras_bert" and policy == default and xla == default_xla:
            name += " (default)"
        if library == "keras_bert" and policy == "float32" and xla:
            name += " (default before)"
        return name

    results = []
    for seq_length in options.seq_lengths:
        batch_size = options.batch_size or BATCH_SIZES[config_name]
        inputs, labels = span_batch(config["vocab_size"], batch_size, seq_length)
        log(f"precision {config_name} seq {seq_length}, batch {batch_size}: building models")
        with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as workers:
            weights_path = os.path.join(tmp, "weights.npz")
            parity, agreement = _reference_weights(config, inputs, weights_path)
            gc.collect()  # the checks' models: the candidates build their own
            # Every candidate is its own model on the same weights: a Keras model holds one
            # compiled train function, and with --isolate each lives in its own process.
            specs = []
            for policy in POLICIES:
                for xla in (True, False):
                    for library, paths in (("keras_bert", options.keras_bert_paths),
                                           ("keras-hub", options.keras_hub_paths)):
                        if _path_name(policy, xla) in paths:
                            specs.append((label(library, policy, xla), _keras_cases,
                                          (config, policy, xla, library, weights_path, inputs,
                                           labels, options.threads)))
            for path in options.torch_paths:
                specs.append((TORCH_NAMES[path], _torch_cases,
                              (config, path, weights_path, inputs, labels, options.threads)))
            train, infer = {}, {}
            for name, build_fn, args in specs:
                if options.isolate:
                    log(f"  starting {name} in a process of its own")
                    worker = workers.enter_context(Worker(name, build_fn, *args))
                    cases = {case: worker.caller(case) for case in worker.cases}
                else:
                    cases = build_fn(*args)
                train[name] = (cases["train step"], batch_size)
                if "inference" in cases:
                    infer[name] = (cases["inference"], batch_size)
            train.update(matmul_candidates(options.matmul_size))
            train.update(bf16_matmul_candidates(options.matmul_size))
            reference = label("keras_bert", "float32", True)
            notes = {
                "CPU": f"{machine['cpu']}; bf16 units: {', '.join(machine['bf16_units']) or 'none'}; "
                       f"accelerators: {', '.join(machine['accelerators']) or 'none'}",
                "default on this machine": f"{default}, {'XLA' if default_xla else 'no XLA'}",
                "float32 parity (keras_bert vs keras-hub / HF), max |diff| of logits": parity,
                "bf16 vs float32 start/end logits, max |diff|": agreement,
                "processes": ("each model candidate in a process of its own (matmuls in the "
                              "coordinator)" if options.isolate else "every candidate in one"),
            }
            for case, candidates in (("train step", train), ("inference", infer)):
                timings = interleaved(candidates, rounds=options.rounds, warmup=options.warmup,
                                      log=log, settle_s=options.settle_s)
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
