r"""Reads a task model's float weights back out of a `.tflite` file that `keras_bert.export.cli` wrote.

    .venv/bin/python -m tools.tflite_to_checkpoint --task_name=squad \
        --tflite_file=apps/models/squad_minilm_dynamic_int8.tflite \
        --base_checkpoint=$MINILM --output_dir=runs/parent_from_dynamic

Writes a Hugging Face checkpoint folder (`save_hf_checkpoint`, plus `bert_config.json`) that
every `--init_checkpoint` reads. A `float32` file gives the weights exactly; a `dynamic_int8`
file gives each int8 weight (the dense kernels per output channel, the token embedding per
tensor) as its int8 value times its scale, within half a step of the weight it was made from.
Full-int8 files are refused: their activations were quantized too, so their weights alone
are not the model. What the file does not hold comes from `--base_checkpoint` (the checkpoint
the model was fine-tuned from): the pooler, which task models never run, and the position
embeddings past the file's sequence length.

Use it when the `.tflite` is all that is left of a fine-tuned model: to quantize it again, to
fine-tune it further, or to check it against transformers.
"""

import os
import re

import numpy as np
from absl import app
from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS


def define_flags():
    """The tool's flags (defined only when it runs: the tests import its functions beside
    other CLIs that define `task_name` and `output_dir`)."""
    flags.DEFINE_string("tflite_file", None, "A float32 or dynamic_int8 .tflite written by keras_bert.export.cli.")
    flags.DEFINE_string("task_name", None, "squad, conll2003 or a GLUE task: the model in the file.")
    flags.DEFINE_string("base_checkpoint", None,
                        "The checkpoint the model was fine-tuned from (its config, and the "
                        "tensors the file does not hold).")
    flags.DEFINE_string("output_dir", None, "The Hugging Face checkpoint folder to write.")


def _matches(tflite_scope, keras_scope):
    """Whether a tensor's name scope in the file is a Keras layer path (each name may carry
    the `_1` that Keras adds when the converter traces the model a second time)."""
    if len(tflite_scope) != len(keras_scope):
        return False
    return all(t == k or re.fullmatch(re.escape(k) + r"_\d+", t)
               for t, k in zip(tflite_scope, keras_scope))


def _file_tensors(path):
    """`[(name parts, float32 array)]` of the file's constants, int8 ones dequantized."""
    from ai_edge_litert.interpreter import Interpreter

    from keras_bert.export.tflite.metadata import read_model

    with open(path, "rb") as f:
        flatbuffer = read_model(f.read())
    constants = {i for i, tensor in enumerate(flatbuffer.subgraphs[0].tensors)
                 if tensor.buffer and flatbuffer.buffers[tensor.buffer].data is not None}
    interpreter = Interpreter(model_path=os.fspath(path))
    interpreter.allocate_tensors()
    tensors = []
    for detail in interpreter.get_tensor_details():
        if detail["index"] not in constants:
            continue
        parts = detail["name"].split(";")[0].split("/")
        value = interpreter.get_tensor(detail["index"])
        scales = detail["quantization_parameters"]["scales"]
        if value.dtype == np.int8 and len(scales):
            axis = detail["quantization_parameters"]["quantized_dimension"]
            shape = [1] * value.ndim
            shape[axis] = -1
            value = value.astype(np.float32) * (scales.reshape(shape) if len(scales) > 1
                                                else scales[0])
        elif value.dtype != np.float32:
            continue
        tensors.append((parts, value))
    return tensors


def _layer_tensors(tensors, layer_path):
    """The file's constants under the Keras layer at `layer_path` (variable path minus its name),
    keyed by the op path below the layer. The model's own top scope may lead every name."""
    scope = layer_path.split("/")
    ops = {}
    for parts, value in tensors:
        for lead in range(3):  # e.g. bert_question_answerer_1/bert_encoder_1/<layer path>
            if _matches(parts[lead:lead + len(scope)], scope):
                ops["/".join(parts[lead + len(scope):])] = value
                break
    return ops


def _from_file(variable, tensors):
    """The file's value of one Keras variable, in the variable's layout, or None."""
    layer_path, name = variable.path.rsplit("/", 1)
    ops = _layer_tensors(tensors, layer_path)
    shape = tuple(variable.shape)
    if name == "kernel":  # FULLY_CONNECTED keeps [out, in]
        value = ops.get("Tensordot/MatMul", ops.get("MatMul"))
        return None if value is None else value.reshape(shape[::-1]).T
    if name == "bias":
        return ops.get("BiasAdd")
    if name in ("gamma", "beta"):  # LayerNormalization reshapes gamma first, then beta
        value = ops.get("Reshape" if name == "gamma" else "Reshape_1")
        return None if value is None else value.reshape(shape)
    if name == "embeddings":
        return ops.get("GatherV2/ReadVariableOp")
    if name == "position_embeddings":  # the rows the file's sequence length reads
        value = ops.get("strided_slice")
        if value is None:
            return None
        value = value.reshape(-1, shape[-1])
        return value if value.shape[0] <= shape[0] else None
    return None


def read_tflite_weights(model, tflite_file):
    """The weights of `model`'s variables that `tflite_file` holds, as float32 arrays.

    Args:
        model: the keras_bert task model the file was converted from (same config and head),
            built; its variables name the tensors to look for.
        tflite_file: a `float32` or `dynamic_int8` `.tflite` written by `keras_bert.export.cli`.

    Returns:
        `{variable path: array}`. Position embeddings may hold only the file's sequence length
        of rows; variables the file lacks (the pooler) are left out.
    """
    from keras_bert.export.tflite.conversion import tflite_op_names

    ops = tflite_op_names(tflite_file)
    if "QUANTIZE" in ops:
        raise ValueError(f"{tflite_file} quantizes its activations (full or mixed int8): its weights "
                         "alone are not the model. Pass its float32 or dynamic_int8 file.")
    tensors = _file_tensors(tflite_file)
    weights = {}
    for variable in model.weights:
        value = _from_file(variable, tensors)
        if value is not None:
            weights[variable.path] = np.asarray(value, np.float32)
    return weights


def restore_from_tflite(model, tflite_file):
    """Assigns `read_tflite_weights(model, tflite_file)` to `model`; returns the paths of the
    variables left as they were (the model should hold its base checkpoint's weights)."""
    weights = read_tflite_weights(model, tflite_file)
    missing = []
    for variable in model.weights:
        value = weights.get(variable.path)
        if value is None:
            missing.append(variable.path)
        elif value.shape == tuple(variable.shape):
            variable.assign(value)
        elif variable.path.endswith("position_embeddings"):
            variable.assign(np.concatenate([value, np.asarray(variable)[len(value):]]))
        else:
            raise ValueError(f"{tflite_file}: {variable.path} has shape {value.shape}, the model "
                             f"{tuple(variable.shape)}. Pass the --base_checkpoint of its config.")
    return missing


def main(argv):
    del argv
    from keras_bert.export.task.task_model import load_task_model
    from keras_bert.checkpoints import save_hf_checkpoint
    from keras_bert.checkpoints.run_folder import model_folder

    if not os.path.isfile(FLAGS.tflite_file):
        raise app.UsageError(f"--tflite_file={FLAGS.tflite_file} is not a file.")
    model = load_task_model(FLAGS.task_name, FLAGS.base_checkpoint, require_heads=False)
    try:
        missing = restore_from_tflite(model, FLAGS.tflite_file)
    except ValueError as error:
        raise app.UsageError(str(error)) from None
    print(f"{len(model.weights) - len(missing)} of {len(model.weights)} tensors from "
          f"{FLAGS.tflite_file}; kept from --base_checkpoint: {', '.join(missing) or 'none'}")
    # keras_bert.export.cli finds bert_config.json next to the weights; save_hf_checkpoint writes its
    # config.json last, the mark of a complete folder.
    model.encoder.bert_config.to_json_file(os.path.join(FLAGS.output_dir, "bert_config.json"))
    vocab = os.path.join(model_folder(FLAGS.base_checkpoint), "vocab.txt")
    save_hf_checkpoint(model, FLAGS.output_dir, vocab_file=vocab if os.path.isfile(vocab) else None)
    print(f"Wrote {FLAGS.output_dir}")


if __name__ == "__main__":
    define_flags()
    flags.mark_flags_as_required(["tflite_file", "task_name", "base_checkpoint", "output_dir"])
    usage.run(main)
