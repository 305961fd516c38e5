"""Which float32 operations move the QA logits away from the exact (float64) answer.
Makes: docs/lab/export_history.md, "Results: the SQuAD model", the float32 bullet's per-operation
errors (dense 6.46e-6, LayerNorm 1.99e-6, ...).
Rerun: .venv/bin/python -m experiments.float32_attribution --num_windows=12

    PYTHONPATH=. .venv/bin/python experiments/float32_attribution.py \
        --model_dir=runs/squad_minilm/out --num_windows=6

Runs the float64 NumPy oracle (tests/reference/numpy_bert.py) with one kind of operation at a
time computed in float32 (its inputs and weights rounded to float32, its output kept in
float32), then with all of them, and prints the max |logit - exact| for each. If one kind of
operation dominated, an export could route around it; the table shows whether it does.
"""

import argparse
import contextlib

import numpy as np

from experiments.logit_yardstick import qa_and_windows
from keras_bert.checkpoints import collect_weights
from tests.reference import numpy_bert

F32 = np.float32


def _dense32(original):
    def dense(w, scope, x):
        kernel, bias = f"{scope}/kernel", f"{scope}/bias"
        w32 = {kernel: w[kernel].astype(F32), bias: w[bias].astype(F32)}
        return original(w32, scope, x.astype(F32))

    return dense


def _layer_norm32(original):
    def layer_norm(x, gamma, beta, eps=1e-12):
        return original(x.astype(F32), gamma.astype(F32), beta.astype(F32), eps)

    return layer_norm


def _softmax32(original):
    return lambda x: original(x.astype(F32))


def _gelu32(original):
    # math.erf has no float32 form: the exact GELU rounded to float32, the best a kernel can do.
    return lambda x: original(x.astype(F32)).astype(F32)


def _all32(_):
    return lambda w: {k: np.asarray(v, F32) for k, v in w.items()}


# name -> (numpy_bert attribute, wrapper); "all" applies every one and also rounds the weights,
# so the inline operations (residual adds, attention matmuls) run in float32 too.
PATCHES = {
    "dense (matmul + bias)": ("dense", _dense32),
    "layer_norm": ("layer_norm", _layer_norm32),
    "softmax": ("softmax", _softmax32),
    "gelu (rounded)": ("gelu", _gelu32),
}


@contextlib.contextmanager
def float32(names):
    """Within the block, numpy_bert computes the named operations in float32."""
    saved = {}
    for name in names:
        patches = [PATCHES[name]] if name in PATCHES else [*PATCHES.values(), ("as_float64", _all32)]
        for attr, wrap in patches:
            saved[attr] = getattr(numpy_bert, attr)
            setattr(numpy_bert, attr, wrap(saved[attr]))
    gelu = numpy_bert.ACTIVATIONS["gelu"]
    numpy_bert.ACTIVATIONS["gelu"] = numpy_bert.gelu
    try:
        yield
    finally:
        for attr, original in saved.items():
            setattr(numpy_bert, attr, original)
        numpy_bert.ACTIVATIONS["gelu"] = gelu


def start_logits(weights, config, inputs, names=()):
    with float32(names):
        sequence, _, _ = numpy_bert.encoder(weights, config, **inputs)
        head = numpy_bert.as_float64(
            {"w": weights["cls/squad/output_weights"], "b": weights["cls/squad/output_bias"]}
        )
        return (sequence @ head["w"].T + head["b"])[..., 0].astype(np.float64)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", default="runs/squad_minilm/out")
    parser.add_argument("--squad", default="../shared/data/squad/dev-v1.1.json.gz")
    parser.add_argument("--num_windows", type=int, default=6)
    args = parser.parse_args()
    qa, config, inputs = qa_and_windows(args.model_dir, args.squad, args.num_windows)
    weights = collect_weights(qa)
    exact = start_logits(weights, config, inputs)
    keras = qa.predict(inputs, verbose=0)["start_logits"]
    print(f"{args.num_windows} windows, start logits, max |x - float64|")
    print(f"  {'Keras (TensorFlow kernels)':40s} {np.abs(keras - exact).max():.2e}")
    for names in [[n] for n in PATCHES] + [["all"]]:
        got = start_logits(weights, config, inputs, names)
        label = "NumPy, only " + names[0] + " in float32" if names != ["all"] else "NumPy, all float32"
        print(f"  {label:40s} {np.abs(got - exact).max():.2e}")


if __name__ == "__main__":
    main()
