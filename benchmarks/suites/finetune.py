"""Fine-tuning throughput on real variable-length data: SST-2 sentences and SQuAD windows.

Padding every example to `max_seq_length` pays for tokens that are not there: SST-2 sentences
average about a fifth of 128 tokens. Candidates, each one epoch over the same sample:
- keras_bert padded to the maximum length (the fixed-shape baseline the goal is stated against);
- keras_bert as its fine-tuning CLIs feed it: length-grouped batches cut to their longest row,
  rounded up to a multiple of 16 or 32, XLA-compiled (a handful of shapes, each compiled once);
- the same without XLA (every length its own shape, no compilation);
- keras-hub padded to the maximum length (its preprocessors pad to `sequence_length`);
- HF PyTorch with `DataCollatorWithPadding`'s dynamic padding (random batches cut to their
  longest row), and padded to the maximum length.
"""

import numpy as np

from benchmarks import configs, finetune_data, hf_models, models, training_steps
from benchmarks.harness import interleaved

TASKS = {
    # max_seq_length, batch size, examples per epoch (per config: the bigger, the fewer)
    "sst2": {"max_seq_length": 128, "batch_size": 32, "pad_to_multiple_of": 16,
             "examples": {"tiny": 64, "mini": 512, "minilm": 256, "base": 128}},
    "squad": {"max_seq_length": 384, "batch_size": 16, "pad_to_multiple_of": 32,
              "examples": {"tiny": 32, "mini": 128, "minilm": 96, "base": 48}},
}


def _keras_models(config, task):
    """keras_bert's and keras-hub's task models over the same encoder weights."""
    import keras_hub

    import keras_bert
    from keras_bert.checkpoints.keras_hub_checkpoint import encoder_to_keras_hub

    encoder = models.our_encoder(config)
    backbone = encoder_to_keras_hub(encoder)
    if task == "sst2":
        ours = keras_bert.BertClassifier(encoder, num_classes=2)
        hub = keras_hub.models.BertTextClassifier(backbone, num_classes=2, preprocessor=None)
    else:
        ours = keras_bert.BertQuestionAnswerer(encoder)
        hub = models.KerasHubSpanModel(backbone)
    return ours, hub


def run(config_name, options, log=print):
    config = configs.bert_config(config_name)
    results = []
    for task in options.tasks:
        spec = TASKS[task]
        max_len, batch_size = spec["max_seq_length"], spec["batch_size"]
        multiple = spec["pad_to_multiple_of"]
        count = spec["examples"][config_name]
        log(f"finetune {config_name} {task}: reading {count} examples")
        reader = finetune_data.sst2 if task == "sst2" else finetune_data.squad
        inputs, labels = reader(options.data_dir, count, max_len)
        # The tiny test config has a 1,000-token vocabulary: fold the real ids into it.
        inputs["token_ids"] = inputs["token_ids"] % config["vocab_size"]
        lengths = inputs["padding_mask"].sum(axis=1)
        padded = finetune_data.padded_batches(inputs, labels, batch_size)
        grouped = finetune_data.trimmed_batches(inputs, labels, batch_size, grouped=True,
                                                pad_to_multiple_of=multiple)
        grouped_exact = finetune_data.trimmed_batches(inputs, labels, batch_size, grouped=True)
        dynamic = finetune_data.trimmed_batches(inputs, labels, batch_size, grouped=False)
        examples = len(padded) * batch_size

        ours, hub = _keras_models(config, task)
        hf = hf_models.hf_model(
            config, "BertForSequenceClassification" if task == "sst2"
            else "BertForQuestionAnswering", weights_from=ours.encoder,
        )
        keras_loss = (training_steps.keras_classification_loss if task == "sst2"
                      else training_steps.keras_span_loss)
        torch_loss = (training_steps.torch_classification_loss if task == "sst2"
                      else training_steps.torch_span_loss)
        agreement = _padding_changes_nothing(ours, padded[0], max_len)

        def epoch(step, batches):
            return lambda: [step(x, y) for x, y in batches], examples

        ours_xla = training_steps.keras_train_step(ours, keras_loss, jit_compile=True)
        ours_graph = training_steps.keras_train_step(ours, keras_loss, jit_compile=False)
        hub_xla = training_steps.keras_train_step(hub, keras_loss, jit_compile=True)
        hf_step = training_steps.torch_train_step(hf, hf_models.hf_encoder_forward, torch_loss,
                                                  dtype_policy=options.dtype_policy)
        candidates = {
            f"keras_bert, padded to {max_len} (XLA)": epoch(ours_xla, padded),
            f"keras_bert, length-grouped, x{multiple} (XLA)": epoch(ours_xla, grouped),
            "keras_bert, length-grouped (no XLA)": epoch(ours_graph, grouped_exact),
            f"keras-hub, padded to {max_len} (XLA)": epoch(hub_xla, padded),
            "HF PyTorch, dynamic padding": epoch(hf_step, dynamic),
            f"HF PyTorch, padded to {max_len}": epoch(hf_step, padded),
        }
        timings = interleaved(candidates, rounds=options.rounds, warmup=1, log=log,
                              settle_s=options.settle_s)
        for timing in timings.values():
            timing.unit = "examples/s"
        padded_tokens = len(padded) * batch_size * max_len
        results.append(
            {
                "suite": "finetune",
                "config": config_name,
                "case": f"{task}, {examples} examples, batch {batch_size}, max length {max_len}",
                "reference": f"keras_bert, padded to {max_len} (XLA)",
                "timings": [t.to_json() for t in timings.values()],
                "notes": {
                    "mean real length": f"{lengths.mean():.1f} tokens (median "
                    f"{np.median(lengths):.0f}, max {lengths.max()})",
                    "tokens computed, share of padded": ", ".join(
                        f"{name} {sum(x['token_ids'].size for x, _ in b) / padded_tokens:.2f}"
                        for name, b in ((f"grouped x{multiple}", grouped), ("grouped", grouped_exact),
                                        ("dynamic", dynamic))
                    ),
                    "trimmed vs padded outputs, max |diff|": f"{agreement:.2g}",
                },
            }
        )
    return results


def _padding_changes_nothing(model, batch, max_len):
    """Max |difference| of a batch's outputs trimmed to its longest row vs padded to
    `max_len`: the accuracy argument for trimming (padding is masked, so ~1e-6)."""
    inputs, _ = batch
    longest = int(inputs["padding_mask"].sum(axis=1).max())
    full = model(inputs, training=False)
    short = model({k: v[:, :longest] for k, v in inputs.items()}, training=False)
    if isinstance(full, dict):  # span logits: compare the real positions
        return max(float(np.abs(np.asarray(full[k])[:, :longest] - np.asarray(short[k])).max())
                   for k in full)
    return float(np.abs(np.asarray(full) - np.asarray(short)).max())
