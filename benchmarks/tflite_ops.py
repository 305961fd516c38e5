r"""Per-operator latency of a `.tflite` model, with and without XNNPACK.

LiteRT's Python API times only whole invocations. This cuts the model into one model per
operator (its constant inputs kept, the other inputs fed with random values of their shape and
type), runs each on LiteRT's default resolver (XNNPACK where it takes the op) and on its
builtin kernels, and reports per op type: how many ops, how many XNNPACK took, and their
summed median latency. The sum is not the whole model's latency (a delegate fuses
neighbouring ops and avoids per-op overheads), but it shows which operators cost what and
which ones leave the fast path.

    python -m benchmarks.tflite_ops --model=squad_full_int8.tflite --threads=2
"""

import collections
import copy
import time

import numpy as np

from keras_bert.export.tflite.metadata import pack_model, read_model


def single_op_models(tflite_bytes):
    """Yields `(index, op_name, model_bytes)` for every operator of the first subgraph."""
    from tensorflow.lite.python import schema_py_generated as tflite_schema

    model = read_model(tflite_bytes)
    subgraph = model.subgraphs[0]
    names = _op_names(model)
    for index, op in enumerate(subgraph.operators):
        new = tflite_schema.ModelT()
        new.version = model.version
        new.operatorCodes = model.operatorCodes
        new.buffers = [tflite_schema.BufferT()]  # buffer 0: "no data", by convention
        tensors, mapping, feeds = [], {}, []

        def add(tensor_index):
            if tensor_index in mapping:
                return mapping[tensor_index]
            tensor = copy.copy(subgraph.tensors[tensor_index])
            data = model.buffers[tensor.buffer].data
            if data is not None and len(data):
                new.buffers.append(model.buffers[tensor.buffer])
                tensor.buffer = len(new.buffers) - 1
            else:
                tensor.buffer = 0
                feeds.append(len(tensors))
            mapping[tensor_index] = len(tensors)
            tensors.append(tensor)
            return mapping[tensor_index]

        one = copy.copy(op)
        one.inputs = [add(i) if i >= 0 else -1 for i in op.inputs]
        one.outputs = [add(o) for o in op.outputs]
        graph = tflite_schema.SubGraphT()
        graph.tensors = tensors
        graph.inputs = [i for i in one.inputs if i >= 0 and i in feeds]
        graph.outputs = list(one.outputs)
        graph.operators = [one]
        new.subgraphs = [graph]
        yield index, names[op.opcodeIndex], pack_model(new)


def _op_names(model):
    from tensorflow.lite.python import schema_py_generated as tflite_schema

    by_code = {v: k for k, v in vars(tflite_schema.BuiltinOperator).items() if not k.startswith("_")}
    return [by_code.get(max(c.builtinCode, c.deprecatedBuiltinCode), "CUSTOM")
            for c in model.operatorCodes]


def xnnpack_partitions(interpreter):
    """How many delegate (XNNPACK) partitions an allocated LiteRT interpreter runs: 1 when the
    whole graph runs on XNNPACK; more when ops it cannot take fall between partitions."""
    return sum(op["op_name"] == "DELEGATE" for op in interpreter._get_ops_details())


def _time(model_bytes, threads, builtin_only, runs):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    resolver = (OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES if builtin_only
                else OpResolverType.AUTO)
    interpreter = Interpreter(model_content=model_bytes, num_threads=threads,
                              experimental_op_resolver_type=resolver)
    interpreter.allocate_tensors()
    delegated = xnnpack_partitions(interpreter) > 0
    rng = np.random.default_rng(0)
    for detail in interpreter.get_input_details():
        dtype = detail["dtype"]
        if dtype in (np.int32, np.int64):
            # Indices, ids, shapes: 0 and 1 are in range for any GATHER or embedding lookup.
            value = rng.integers(0, 2, detail["shape"])
        elif np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)  # quantized activations
            value = rng.integers(max(info.min, -100), min(info.max, 100), detail["shape"])
        else:
            value = rng.standard_normal(detail["shape"])
        interpreter.set_tensor(detail["index"], value.astype(dtype))
    interpreter.invoke()
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        interpreter.invoke()
        seconds.append(time.perf_counter() - start)
    return float(np.median(seconds)), delegated


def op_profile(tflite_bytes, threads=2, runs=10, log=None):
    """`{op_type: {count, xnnpack, default_ms, builtin_ms}}`, sorted by default-resolver time,
    and the per-op rows `[(index, op_type, default_ms, builtin_ms, taken_by_xnnpack)]`."""
    rows = []
    for index, name, model_bytes in single_op_models(tflite_bytes):
        default_s, delegated = _time(model_bytes, threads, False, runs)
        builtin_s, _ = _time(model_bytes, threads, True, runs)
        rows.append((index, name, 1000 * default_s, 1000 * builtin_s, delegated))
        if log and index % 100 == 0:
            log(f"  op {index}")
    totals = collections.defaultdict(lambda: {"count": 0, "xnnpack": 0, "default_ms": 0.0,
                                              "builtin_ms": 0.0})
    for _, name, default_ms, builtin_ms, delegated in rows:
        entry = totals[name]
        entry["count"] += 1
        entry["xnnpack"] += int(delegated)
        entry["default_ms"] += default_ms
        entry["builtin_ms"] += builtin_ms
    ordered = dict(sorted(totals.items(), key=lambda kv: -kv[1]["default_ms"]))
    return ordered, rows


def profile_table(totals):
    """Markdown table of `op_profile` totals."""
    lines = ["| op | count | taken by XNNPACK | ms, default resolver | ms, builtin kernels |",
             "|---|---|---|---|---|"]
    for name, entry in totals.items():
        lines.append(f"| {name} | {entry['count']} | {entry['xnnpack']} | "
                     f"{entry['default_ms']:.2f} | {entry['builtin_ms']:.2f} |")
    return "\n".join(lines)


def main(argv):
    from absl import flags

    FLAGS = flags.FLAGS
    with open(FLAGS.model, "rb") as f:
        totals, _ = op_profile(f.read(), FLAGS.threads, FLAGS.runs, log=print)
    print(profile_table(totals))


if __name__ == "__main__":
    from absl import app, flags

    flags.DEFINE_string("model", None, "The .tflite file to profile.", required=True)
    flags.DEFINE_integer("threads", 2, "Interpreter threads.")
    flags.DEFINE_integer("runs", 10, "Timed invocations per op (median).")
    app.run(main)
