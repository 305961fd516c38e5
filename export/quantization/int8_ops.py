"""`op_errors`: how far each int8 op of a `.tflite` is from exact arithmetic on its own inputs."""

import math

import numpy as np


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _gelu(x):
    return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def _fully_connected(x, w, b=0.0):
    return x @ w.T + b


def _batch_matmul(a, b):
    # The op's adj_y is not in LiteRT's op details: read it from the shapes (scores are
    # [.., S, D] x [.., S, D]^T; probs x values [.., S, S] x [.., S, D]).
    return a @ (b if a.shape[-1] == b.shape[-2] else np.swapaxes(b, -1, -2))


def _reduce_max(x, axes):
    return np.max(x, axis=tuple(int(a) for a in np.atleast_1d(axes)), keepdims=True)


# op name -> float64 function of the op's dequantized inputs
CHECKED_OPS = {
    "ADD": np.add, "SUB": np.subtract, "MUL": np.multiply, "FULLY_CONNECTED": _fully_connected,
    "RSQRT": lambda x: 1.0 / np.sqrt(x), "TANH": np.tanh, "GELU": _gelu, "SOFTMAX": _softmax,
    "BATCH_MATMUL": _batch_matmul, "REDUCE_MAX": _reduce_max,
}


def _dequantized(interpreter, detail):
    """A tensor's real values (per-channel scales on axis 0, as FULLY_CONNECTED weights)."""
    value = interpreter.get_tensor(detail["index"]).astype(np.float64)
    params = detail["quantization_parameters"]
    scales, zero_points = params["scales"], params["zero_points"]
    if len(scales) == 0:
        return value
    if len(scales) > 1:
        shape = (-1,) + (1,) * (value.ndim - 1)
        return (value - zero_points.reshape(shape)) * scales.reshape(shape)
    return (value - zero_points[0]) * scales[0]


def op_errors(path, resolver, feed):
    """Checks every int8 op of the types in `CHECKED_OPS` against exact arithmetic.

    Runs `path` once on `feed` (a signature runner's keyword inputs) under LiteRT's
    `resolver` ("BUILTIN_WITHOUT_DEFAULT_DELEGATES" or "BUILTIN_REF"; the XNNPACK delegate
    hides its ops' tensors), then recomputes each op from its own int8 inputs (dequantized,
    float64, requantized to the output's grid). A correct kernel is within half a step of
    that, give or take a rounding tie; an op off by more than 1 step computes wrong.

    Returns:
        `[(op index, op name, output tensor name, max |error| in grid steps)]`.
    """
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    interpreter = Interpreter(
        model_path=path, experimental_op_resolver_type=getattr(OpResolverType, resolver),
        experimental_preserve_all_tensors=True,
    )
    interpreter.get_signature_runner()(**feed)
    details = {d["index"]: d for d in interpreter.get_tensor_details()}
    errors = []
    for op in interpreter._get_ops_details():
        out = details[op["outputs"][0]]
        if op["op_name"] not in CHECKED_OPS or out["dtype"] != np.int8:
            continue
        inputs = [_dequantized(interpreter, details[i]) for i in op["inputs"] if i >= 0]
        scale, zero_point = out["quantization"]
        exact = CHECKED_OPS[op["op_name"]](*inputs).reshape(out["shape"])
        exact = np.clip(exact / scale + zero_point, -128, 127)
        error = np.abs(interpreter.get_tensor(out["index"]).astype(np.float64) - exact).max()
        errors.append((op["index"], op["op_name"], out["name"], float(error)))
    return errors
