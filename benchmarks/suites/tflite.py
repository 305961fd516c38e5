"""TFLite / LiteRT: batch-1 latency of each quantization variant of the QA model at the app's
contract shape (`[1, 384]`), on 1 and 2 threads, with file size and agreement with Keras.

float32 on 2 threads is the reference. `full_int8` converts keras_bert's int8 graph
(`keras_bert.export.quantization.qat.int8_graph`), calibrated here on the benchmark inputs; it is the NPU/DSP
format. `mixed_int8` (int8 fully-connected layers, float attention and LayerNorm) is calibrated
on the same inputs.
"""

import os
import tempfile

import numpy as np

from benchmarks import configs
from benchmarks.harness import interleaved
from benchmarks.tflite_ops import op_profile, profile_table, xnnpack_partitions
from benchmarks.suites.inference import qa_inputs, qa_models

SEQ_LENGTH = 384
VARIANTS = ("float32", "float16", "dynamic_int8", "mixed_int8", "full_int8")


def run(config_name, options, log=print):
    from ai_edge_litert.interpreter import Interpreter

    from keras_bert.export.task.signature_names import exported_inputs
    from keras_bert.export.tflite.conversion import CALIBRATED, export_tflite, tflite_runner

    config = configs.bert_config(config_name)
    ours, _, _ = qa_models(config)
    batch = qa_inputs(config["vocab_size"], 1, SEQ_LENGTH)
    # Calibration inputs for mixed and full int8: 16 sequences with real-looking padding.
    calibration = qa_inputs(config["vocab_size"], 16, SEQ_LENGTH, seed=1)
    for row, length in enumerate(np.linspace(64, SEQ_LENGTH, 16).astype(int)):
        calibration["padding_mask"][row, length:] = 0
        calibration["token_ids"][row, length:] = 0
    keras_out = {k: np.asarray(v) for k, v in ours(batch, training=False).items()}
    feed = {k: np.asarray(v, np.int32) for k, v in exported_inputs(batch).items()}
    candidates, sizes, agreement, partitions = {}, {}, {}, {}
    tables, profiles = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for variant in VARIANTS:
            log(f"  converting {variant}")
            path = export_tflite(ours, os.path.join(tmp, f"qa_{variant}.tflite"), SEQ_LENGTH,
                                 variant, calibration if variant in CALIBRATED else None)
            sizes[variant] = os.path.getsize(path) / 1e6
            interpreter = Interpreter(model_path=path, num_threads=2)
            interpreter.allocate_tensors()
            partitions[variant] = xnnpack_partitions(interpreter)
            if options.op_profile and variant in ("float32", "full_int8"):
                log(f"  per-operator profile of {variant}")
                with open(path, "rb") as f:
                    totals, _ = op_profile(f.read(), threads=2)
                tables[f"per-operator latency, {variant}, 2 threads"] = profile_table(totals)
                profiles[variant] = totals
            for threads in (1, 2):
                runner = tflite_runner(path, threads)
                call = (lambda runner=runner: runner(**feed))
                candidates[f"{variant}, {threads} thread{'s' if threads > 1 else ''}"] = (call, 1)
            outputs = runner(**feed)
            agreement[variant] = max(
                float(np.abs(outputs[k] - keras_out[k]).max()) for k in keras_out
            )
        log(f"tflite {config_name}: timing {len(candidates)} candidates")
        timings = interleaved(candidates, rounds=options.rounds * 6, warmup=options.warmup + 2,
                              log=lambda *a: None, settle_s=options.settle_s)
    return [{
        "suite": "tflite",
        "config": config_name,
        "case": f"QA, batch 1, seq {SEQ_LENGTH}, ai-edge-litert (XNNPACK)",
        "metric": "latency",
        "reference": "float32, 2 threads",
        "timings": [t.to_json() for t in timings.values()],
        "notes": {
            "size (MB)": ", ".join(f"{v} {s:.1f}" for v, s in sizes.items()),
            "size vs float32": ", ".join(f"{v} {s / sizes['float32']:.2f}" for v, s in sizes.items()),
            "max |logit diff| vs Keras": ", ".join(f"{v} {d:.3g}" for v, d in agreement.items()),
            "XNNPACK partitions": ", ".join(f"{v} {n}" for v, n in partitions.items()),
        },
        "tables": tables,
        "op_profile": profiles,
    }]
