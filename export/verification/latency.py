"""Batch-1 latency of exported models: TFLite in-process, TensorFlow in a fresh process per thread count."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

from keras_bert.export.tflite.conversion import tflite_runner


def percentiles(seconds):
    """`{"p50_ms", "p90_ms"}` of a list of durations in seconds."""
    ms = 1000.0 * np.asarray(seconds)
    return {"p50_ms": float(np.percentile(ms, 50)), "p90_ms": float(np.percentile(ms, 90))}


def tflite_latency(path, inputs, num_threads, runs=30, warmup=3):
    """p50/p90 of `runs` batch-1 invocations of a `.tflite` (`inputs`: `{ids, mask, segment_ids}`)."""
    runner = tflite_runner(path, num_threads)
    feed = {name: np.asarray(value, np.int32) for name, value in inputs.items()}
    for _ in range(warmup):
        runner(**feed)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        runner(**feed)
        times.append(time.perf_counter() - start)
    return percentiles(times)


_TF_SCRIPT = """
import json, sys, time
import numpy as np
import tensorflow as tf
tf.config.threading.set_intra_op_parallelism_threads({threads})
tf.config.threading.set_inter_op_parallelism_threads(1)
feed = {{k: tf.constant(np.asarray(v, np.int32)) for k, v in json.load(open({feed!r})).items()}}
{load}
for _ in range({warmup}):
    run(feed)
times = []
for _ in range({runs}):
    start = time.perf_counter()
    out = run(feed)
    [v.numpy() for v in out.values()]
    times.append(time.perf_counter() - start)
print(json.dumps(times))
"""

_LOAD_SAVED_MODEL = """
import tensorflow_text
signature = tf.saved_model.load({path!r}).signatures["serving_default"]
run = lambda feed: signature(**feed)
"""

_LOAD_KERAS = """
import keras
import keras_bert
from keras_bert.export.task.signature_names import model_inputs
model = keras.saving.load_model({path!r})
call = tf.function(lambda feed: model(model_inputs(feed), training=False))
def run(feed):
    out = call(feed)
    return out if isinstance(out, dict) else {{"logits": out}}
"""


def tensorflow_latency(kind, path, inputs, num_threads, runs=30, warmup=3):
    """p50/p90 of batch-1 calls of a SavedModel's `serving_default` (`kind="saved_model"`) or a
    `.keras` file (`kind="keras"`, a `tf.function`), in a fresh process whose TensorFlow uses
    `num_threads` intra-op threads (a thread count can only be set before TensorFlow starts)."""
    loaders = {"saved_model": _LOAD_SAVED_MODEL, "keras": _LOAD_KERAS}
    with tempfile.TemporaryDirectory() as tmp:
        feed = os.path.join(tmp, "feed.json")
        with open(feed, "w") as f:
            json.dump({k: np.asarray(v).tolist() for k, v in inputs.items()}, f)
        script = _TF_SCRIPT.format(
            threads=num_threads, feed=feed, warmup=warmup, runs=runs,
            load=textwrap.dedent(loaders[kind].format(path=os.path.abspath(path))),  # cwd is root
        )
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        result = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=root
        )
    if result.returncode:
        raise RuntimeError(f"Latency run of {path} failed:\n{result.stderr[-2000:]}")
    return percentiles(json.loads(result.stdout.strip().splitlines()[-1]))
