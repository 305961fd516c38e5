"""`tflite_ops`: each single-operator model computes what that operator computes in the whole model."""

import numpy as np
import tensorflow as tf
from ai_edge_litert.interpreter import Interpreter, OpResolverType

from benchmarks.tflite_ops import op_profile, profile_table, single_op_models


def _small_model():
    kernel = tf.constant(np.random.default_rng(0).standard_normal((8, 4)), tf.float32)

    @tf.function(input_signature=[tf.TensorSpec([2, 8], tf.float32)])
    def f(x):
        return tf.nn.softmax(tf.nn.relu(tf.matmul(x, kernel) + 1.5) * x[:, :4])

    converter = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
    return converter.convert()


def test_single_op_models_reproduce_each_operator_of_the_whole_model():
    model = _small_model()
    # Builtin kernels only: every operator stays a node whose intermediate outputs are kept.
    whole = Interpreter(
        model_content=model, experimental_preserve_all_tensors=True,
        experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
    )
    whole.allocate_tensors()
    x = np.random.default_rng(1).standard_normal((2, 8)).astype(np.float32)
    whole.set_tensor(whole.get_input_details()[0]["index"], x)
    whole.invoke()
    ops = whole._get_ops_details()
    pieces = list(single_op_models(model))
    assert [name for _, name, _ in pieces] == [op["op_name"] for op in ops]
    for (index, _, piece), op in zip(pieces, ops):
        one = Interpreter(model_content=piece)
        one.allocate_tensors()
        # Feed the op's non-constant inputs with the whole model's values of those tensors.
        feeds = iter(one.get_input_details())
        for tensor in op["inputs"]:
            if tensor < 0 or _is_constant(model, tensor):
                continue
            one.set_tensor(next(feeds)["index"], whole.get_tensor(tensor))
        one.invoke()
        expected = whole.get_tensor(op["outputs"][0])
        got = one.get_tensor(one.get_output_details()[0]["index"])
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6, err_msg=f"op {index}")


def _is_constant(model_bytes, tensor_index):
    from keras_bert.export.tflite.metadata import read_model

    model = read_model(model_bytes)
    data = model.buffers[model.subgraphs[0].tensors[tensor_index].buffer].data
    return data is not None and len(data) > 0


def test_profile_counts_every_op_and_sees_xnnpack_take_the_float_ops():
    totals, rows = op_profile(_small_model(), threads=1, runs=2)
    assert sum(entry["count"] for entry in totals.values()) == len(rows) >= 3
    assert totals["FULLY_CONNECTED"]["xnnpack"] == totals["FULLY_CONNECTED"]["count"] == 1
    assert all(row[2] > 0 and row[3] > 0 for row in rows)
    assert "| FULLY_CONNECTED | 1 | 1 |" in profile_table(totals)
