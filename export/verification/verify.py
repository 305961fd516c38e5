"""Keras vs SavedModel vs each TFLite variant on the same real data: score, size, logit diff, latency."""

import json
import os
import tempfile

import keras
import numpy as np
import tensorflow as tf

from keras_bert.export.serving.saved_model import DEFAULT_SIGNATURE
from keras_bert.export.task.signature_names import exported_inputs
from keras_bert.export.tflite.conversion import tflite_runner
from keras_bert.export.verification.latency import tensorflow_latency, tflite_latency
from keras_bert.atomic_files import atomic_open


def _batches(inputs, size):
    count = len(next(iter(inputs.values())))
    for start in range(0, count, size):
        yield {k: v[start : start + size] for k, v in inputs.items()}


def _concat(chunks):
    return {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}


def keras_outputs(model, inputs):
    """`model`'s outputs on `inputs` as a dict (`{"logits"}` for single-output models)."""
    out = model.predict(inputs, batch_size=32, verbose=0)
    return out if isinstance(out, dict) else {"logits": out}


def _saved_model_outputs(signature, inputs, names):
    chunks = []
    for batch in _batches(exported_inputs(inputs), 32):
        out = signature(**{k: tf.constant(v, tf.int32) for k, v in batch.items()})
        chunks.append({name: out[name].numpy() for name in names})
    return _concat(chunks)


def _tflite_outputs(path, inputs, names, progress=None):
    runner = tflite_runner(path, num_threads=2)
    chunks = []
    for batch in _batches(exported_inputs(inputs), 1):
        out = runner(**{k: v.astype(np.int32) for k, v in batch.items()})
        chunks.append({name: out[name] for name in names})
        if progress:
            progress()
    return _concat(chunks)


def _directory_size(path):
    return sum(
        os.path.getsize(os.path.join(root, name))
        for root, _, names in os.walk(path)
        for name in names
    )


def compare_variants(model, version_dir, tflite_paths, inputs, score, latency_threads=(1, 2),
                     latency_runs=30, progress=None, reference=None):
    """Runs every variant on `inputs` and scores it.

    Args:
        model: the fine-tuned Keras model (the reference).
        version_dir: its SavedModel export (`serving_default` is run), or `None`.
        tflite_paths: `{variant name: .tflite path}`.
        inputs: model inputs `{token_ids, segment_ids, padding_mask}` `[n, seq]` (the TFLite
            sequence length).
        score: callable, outputs dict -> `{metric: value}`.
        latency_threads: intra-op thread counts for the batch-1 latency.
        progress: optional callable `(variant name, done, total)`.
        reference: `keras_outputs(model, inputs)` when the caller already has them.

    Returns:
        list of rows `{variant, size_bytes, scores, max_abs_logit_diff, latency}`, Keras first;
        a `.tflite` that LiteRT cannot run gets `{variant, size_bytes, error}` instead.
    """
    if reference is None:
        reference = keras_outputs(model, inputs)
    names = sorted(reference)
    one = {k: v[:1] for k, v in exported_inputs(inputs).items()}
    rows = []

    def row(variant, outputs, size, latency):
        diffs = np.concatenate([np.abs(outputs[n] - reference[n]).ravel() for n in names])
        rows.append(
            {"variant": variant, "size_bytes": size, "scores": score(outputs),
             "max_abs_logit_diff": float(diffs.max()),
             "share_of_logits_over_1e-5": float((diffs > 1e-5).mean()),
             "latency": latency}
        )

    with tempfile.TemporaryDirectory() as tmp:
        keras_file = os.path.join(tmp, "model.keras")
        model.save(keras_file)
        weights = sum(int(np.prod(w.shape)) * w.dtype.itemsize for w in
                      (np.asarray(v) for v in model.weights))
        row("keras", reference, weights, {
            str(t): tensorflow_latency("keras", keras_file, one, t, latency_runs)
            for t in latency_threads})
    if version_dir is not None:
        signature = tf.saved_model.load(version_dir).signatures[DEFAULT_SIGNATURE]
        row("saved_model", _saved_model_outputs(signature, inputs, names),
            _directory_size(version_dir), {
                str(t): tensorflow_latency("saved_model", version_dir, one, t, latency_runs)
                for t in latency_threads})
    total = len(inputs["token_ids"])
    for variant, path in tflite_paths.items():
        done = [0]

        def tick(variant=variant):
            done[0] += 1
            if progress:
                progress(variant, done[0], total)

        try:
            outputs = _tflite_outputs(path, inputs, names, tick)
            latency = {str(t): tflite_latency(path, one, t, latency_runs) for t in latency_threads}
        except (RuntimeError, ValueError) as e:  # one unusable file must not lose the others
            rows.append({"variant": variant, "size_bytes": os.path.getsize(path),
                         "error": f"LiteRT could not run {path}: {e}"})
            continue
        row(variant, outputs, os.path.getsize(path), latency)
    return rows


def write_report(rows, out_dir, title, extra=None):
    """Writes `verification.json` and `verification.md` (one table) into `out_dir`."""
    os.makedirs(out_dir, exist_ok=True)
    with atomic_open(os.path.join(out_dir, "verification.json")) as f:
        json.dump({"title": title, "rows": rows, **(extra or {})}, f, indent=1)
    metrics = list(rows[0]["scores"])
    threads = list(rows[0]["latency"])
    header = (["variant", "size (MB)"] + metrics
              + ["max abs logit diff vs Keras", "logits off by > 1e-5"]
              + [f"p50 / p90 ms, {t} thread{'s' if t != '1' else ''}" for t in threads])
    lines = [f"# {title}", "", "| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)]
    for r in rows:
        cells = [r["variant"], f"{r['size_bytes'] / 1e6:.1f}"]
        if "error" in r:
            lines.append("| " + " | ".join(cells + [r["error"]] + ["-"] * (len(header) - 3)) + " |")
            continue
        cells += [f"{r['scores'][m]:.2f}" if abs(r['scores'][m]) > 1 else f"{r['scores'][m]:.4f}"
                  for m in metrics]
        cells.append(f"{r['max_abs_logit_diff']:.2e}")
        cells.append(f"{100 * r['share_of_logits_over_1e-5']:.4f} %")
        cells += [f"{r['latency'][t]['p50_ms']:.1f} / {r['latency'][t]['p90_ms']:.1f}"
                  for t in threads]
        lines.append("| " + " | ".join(cells) + " |")
    for key, value in (extra or {}).items():
        lines += ["", f"- {key}: {json.dumps(value)}"]
    with atomic_open(os.path.join(out_dir, "verification.md")) as f:
        f.write("\n".join(lines) + "\n")
    return os.path.join(out_dir, "verification.md")
