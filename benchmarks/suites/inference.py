"""Inference: batch-1 latency and batch-32 throughput of the QA model (encoder + span head).

Candidates: keras_bert as a `tf.function` (with and without XLA), keras_bert's TF Serving
SavedModel (`keras_bert.export.serving.saved_model.export_saved_model`, `serving_default` loaded back in this
process), keras-hub's backbone with the same span head (with and without XLA) and HF
`BertForQuestionAnswering` under `torch.inference_mode`. All hold the same weights; the
outputs are checked to agree before timing.
"""

import os
import tempfile

import numpy as np

from benchmarks import configs, hf_models, models
from benchmarks.harness import interleaved
from benchmarks.training_steps import torch_autocast

BATCHES = {"latency": 1, "throughput": 32}
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repo


def qa_models(config):
    """keras_bert's `BertQuestionAnswerer` and its keras-hub and HF copies (same weights)."""
    import keras_bert
    from keras_bert.checkpoints import collect_weights
    from keras_bert.checkpoints.keras_hub_checkpoint import encoder_to_keras_hub

    ours = keras_bert.BertQuestionAnswerer(models.our_encoder(config))
    hub = models.KerasHubSpanModel(encoder_to_keras_hub(ours.encoder))
    hub.span.build((None, None, config["hidden_size"]))
    weights = collect_weights(ours)
    hub.span.set_weights([weights["cls/squad/output_weights"].T, weights["cls/squad/output_bias"]])
    hf = hf_models.hf_model(config, "BertForQuestionAnswering", weights_from=ours)
    hf.eval()
    return ours, hub, hf


def qa_inputs(vocab_size, batch_size, seq_length, seed=0):
    """Full-length QA windows: a 24-token question segment, then the context."""
    rng = np.random.default_rng(seed)
    segment_ids = np.zeros((batch_size, seq_length), np.int32)
    segment_ids[:, 24:] = 1  # a 24-token question, then the context
    return {
        "token_ids": rng.integers(1000 % vocab_size, vocab_size, (batch_size, seq_length)).astype(np.int32),
        "segment_ids": segment_ids,
        "padding_mask": np.ones((batch_size, seq_length), np.int32),
    }


def run(config_name, options, log=print):
    import tensorflow as tf
    import torch

    from keras_bert.export.serving.saved_model import export_saved_model

    config = configs.bert_config(config_name)
    ours, hub, hf = qa_models(config)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        # The export checks the vocabulary against the model: bert-base-uncased's (shipped with
        # the apps), cut to the config's size (the tiny test config has 1,000 tokens).
        vocab_file = os.path.join(tmp, "vocab.txt")
        source = os.path.join(_ROOT, "apps", "models", "vocab.txt")
        with open(source, encoding="utf-8") as f:
            tokens = f.read().splitlines()[: config["vocab_size"]]
        with open(vocab_file, "w", encoding="utf-8") as f:
            f.write("\n".join(tokens) + "\n")
        saved = {}
        for jit in (False, True):
            version = export_saved_model(
                ours, os.path.join(tmp, f"jit{int(jit)}"), "qa", vocab_file, 384,
                text_signature=False, jit_compile=jit,
            )
            saved[jit] = tf.saved_model.load(version).signatures["serving_default"]
        for mode, batch_size in BATCHES.items():
            for seq_length in options.seq_lengths:
                batch = qa_inputs(config["vocab_size"], batch_size, seq_length)
                feed = {k: tf.constant(v) for k, v in batch.items()}
                exported = {"ids": feed["token_ids"], "mask": feed["padding_mask"],
                            "segment_ids": feed["segment_ids"]}
                torch_feed = {k: torch.from_numpy(v.astype(np.int64)) for k, v in batch.items()}

                def keras_call(model, jit):
                    fn = tf.function(lambda x: model(x, training=False), jit_compile=jit)
                    return lambda: {k: v.numpy() for k, v in fn(feed).items()}

                def saved_call(signature):
                    return lambda: {k: v.numpy() for k, v in signature(**exported).items()}

                def hf_call():
                    with torch.inference_mode(), torch_autocast(options.dtype_policy):
                        out = hf(input_ids=torch_feed["token_ids"],
                                 token_type_ids=torch_feed["segment_ids"],
                                 attention_mask=torch_feed["padding_mask"])
                    return {"start_logits": out.start_logits.float().numpy(),
                            "end_logits": out.end_logits.float().numpy()}

                calls = {
                    "keras_bert (tf.function)": keras_call(ours, False),
                    "keras_bert (XLA)": keras_call(ours, True),
                    "keras_bert SavedModel": saved_call(saved[False]),
                    "keras_bert SavedModel (XLA)": saved_call(saved[True]),
                    "keras-hub (tf.function)": keras_call(hub, False),
                    "keras-hub (XLA)": keras_call(hub, True),
                    "HF PyTorch": hf_call,
                }
                parity = models.check_same_outputs({name: call() for name, call in calls.items()},
                                                   atol=models.PARITY_ATOL[options.dtype_policy])
                rounds = options.rounds * (6 if mode == "latency" else 1)
                log(f"inference {config_name} {mode} batch {batch_size} seq {seq_length}")
                timings = interleaved({n: (c, batch_size) for n, c in calls.items()},
                                      rounds=rounds, warmup=options.warmup + 1, log=lambda *a: None,
                                      settle_s=options.settle_s)
                for timing in timings.values():
                    timing.unit = "seq/s"
                results.append(
                    {
                        "suite": "inference",
                        "config": config_name,
                        "case": f"{mode}, batch {batch_size}, seq {seq_length}",
                        "metric": "latency" if mode == "latency" else "rate",
                        "reference": "HF PyTorch",
                        "parity_max_abs_diff": parity,
                        "timings": [t.to_json() for t in timings.values()],
                    }
                )
    return results
