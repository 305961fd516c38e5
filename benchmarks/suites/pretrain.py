"""Pretraining train step (MLM + NSP): keras_bert vs keras-hub vs HF PyTorch vs the matmul rate."""

from benchmarks import configs, hf_models, inputs, models, training_steps
from benchmarks.harness import interleaved
from benchmarks.matmul_rate import is_matmul, matmul_candidates, matmul_gflops

# Masked positions per sequence: google-research/bert's max_predictions_per_seq (20 at 128,
# 80 at 512 in its README; 76 = 15 % of 512 is what the masking actually fills).
PREDICTIONS = {128: 20, 512: 76}
# Per-step batch: big enough to keep the matmuls efficient, small enough for a few steps a minute.
BATCH_SIZES = {
    "tiny": {128: 4, 512: 2},
    "mini": {128: 32, 512: 8},
    "minilm": {128: 16, 512: 4},
    "base": {128: 8, 512: 2},
}


def default_batch_size(config_name, seq_length):
    """The config's batch at this length, else the seq-128 batch scaled to the same tokens."""
    sizes = BATCH_SIZES[config_name]
    return sizes.get(seq_length, max(1, round(sizes[128] * 128 / seq_length)))


def run(config_name, options, log=print):
    config = configs.bert_config(config_name)
    results = []
    for seq_length in options.seq_lengths:
        batch_size = options.batch_size or default_batch_size(config_name, seq_length)
        predictions = PREDICTIONS.get(seq_length, max(1, round(0.15 * seq_length)))
        case = f"seq {seq_length}, batch {batch_size}"
        log(f"pretrain {config_name} {case}: building the three models")
        batch, labels = inputs.pretraining_batch(
            config["vocab_size"], batch_size, seq_length, predictions
        )
        ours = models.our_pretrainer(config)
        hub = models.KerasHubPretrainer(config, weights_from=ours)
        hf = hf_models.hf_model(config, weights_from=ours)
        parity = models.check_same_outputs(models.pretraining_outputs(ours, hub, hf, batch),
                                           atol=models.PARITY_ATOL[options.dtype_policy])
        def keras_step(model, jit_compile):
            step = training_steps.keras_train_step(
                model, training_steps.keras_pretraining_loss, jit_compile
            )
            return lambda: step(batch, labels), batch_size

        hf_step = training_steps.torch_train_step(
            hf, hf_models.hf_forward, training_steps.torch_pretraining_loss,
            dtype_policy=options.dtype_policy,
        )
        candidates = {
            "keras_bert (XLA)": keras_step(ours, True),
            "keras-hub (XLA)": keras_step(hub, True),
            "HF PyTorch": (lambda: hf_step(batch, labels), batch_size),
        }
        if options.without_xla:
            candidates["keras_bert (no XLA)"] = keras_step(ours, False)
            candidates["keras-hub (no XLA)"] = keras_step(hub, False)
        candidates.update(matmul_candidates())
        timings = interleaved(candidates, rounds=options.rounds, warmup=options.warmup, log=log,
                              settle_s=options.settle_s)
        step_flops = configs.pretraining_step_flops(config, seq_length, predictions, batch_size)
        for name, timing in timings.items():
            if is_matmul(name):
                timing.unit = "GFLOP/s"
            else:
                timing.flops_per_call = step_flops
        results.append(
            {
                "suite": "pretrain",
                "config": config_name,
                "case": case,
                "reference": "keras-hub (XLA)",
                "matmul_gflops": matmul_gflops(timings),
                "parity_max_abs_diff": parity,
                "timings": [t.to_json() for t in timings.values()],
            }
        )
    return results

