"""Keras model -> SavedModel (ExportArchive) -> TFLite with builtin ops only; and a runner."""

import os
import tempfile

import keras
import numpy as np
import tensorflow as tf


def _input_signature(model, batch_size, sequence_length):
    names = list(model.input.keys())
    return {
        name: tf.TensorSpec([batch_size, sequence_length], tf.int32, name=name) for name in names
    }


def _flat_outputs(outputs):
    # Serving signatures need a flat {name: tensor} dict: a list output such as the encoder's
    # `encoder_outputs` becomes `encoder_outputs_0`, `encoder_outputs_1`, ...
    if not isinstance(outputs, dict):
        return {"output": outputs}
    flat = {}
    for name, value in outputs.items():
        if isinstance(value, (list, tuple)):
            flat.update({f"{name}_{i}": v for i, v in enumerate(value)})
        else:
            flat[name] = value
    return flat


def export_tflite(model, path, sequence_length, batch_size=1):
    """Converts a keras_bert model taking `{name: int32 [batch, seq]}` inputs to a `.tflite` file.

    The graph is traced at a fixed `[batch_size, sequence_length]`, exported through
    `keras.export.ExportArchive` (which keeps the weights; a bare `tf.Module` wrapper can drop
    them) and converted with `TFLITE_BUILTINS` only: conversion fails rather than emit Flex (TF)
    ops, which the stock Android runtime cannot run. Returns the path.
    """
    archive = keras.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint(
        "serve",
        lambda inputs: _flat_outputs(model(inputs, training=False)),
        input_signature=[_input_signature(model, batch_size, sequence_length)],
    )
    with tempfile.TemporaryDirectory() as saved_model_dir:
        archive.write_out(saved_model_dir, verbose=False)
        converter = tf.lite.TFLiteConverter.from_saved_model(saved_model_dir)
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
        flatbuffer = converter.convert()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as f:
        f.write(flatbuffer)
    return path


def run_tflite(path, inputs, num_threads=1):
    """Runs a `.tflite` file with ai-edge-litert; returns `{output_name: np.ndarray}`.

    Inputs and outputs are matched by name through the signature runner, never by position.
    """
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        raise ImportError(
            "Running .tflite files needs ai-edge-litert: pip install 'keras-bert[export]'."
        ) from None
    interpreter = Interpreter(model_path=os.fspath(path), num_threads=num_threads)
    signatures = list(interpreter.get_signature_list())
    if len(signatures) != 1:
        raise ValueError(f"{path} has signatures {signatures}; expected exactly one.")
    runner = interpreter.get_signature_runner(signatures[0])
    return runner(**{name: np.asarray(value, np.int32) for name, value in inputs.items()})


def tflite_op_names(path):
    """The set of operator names in a `.tflite` file (e.g. `{"FULLY_CONNECTED", "GELU"}`)."""
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_path=os.fspath(path))
    return {op["op_name"] for op in interpreter._get_ops_details()}
