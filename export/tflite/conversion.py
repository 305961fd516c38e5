"""Keras model -> `.tflite` (float32, float16, dynamic-range int8, mixed int8, full int8), builtin
ops only."""

import os
import tempfile

import keras
import numpy as np
import tensorflow as tf

from keras_bert.export.task.signature_names import EXPORT_INPUTS, exported_inputs, model_inputs
from keras_bert import integrity
from keras_bert.export.tflite.variant_names import QUANTIZATIONS
# Variants whose activation ranges come from calibration examples.
CALIBRATED = ("mixed_int8", "full_int8")
SIGNATURE = "serving_default"
# mixed_int8 keeps these ops in float32: attention's products, softmax, GELU and LayerNorm's
# pieces (mean, variance, rsqrt, scale), and the residual sums. On x86 XNNPACK does not take
# their int8 kernels (docs/benchmarks.md: full int8 runs at 0.16x float), and their int8 grids
# are where full int8 loses its F1 (docs/export.md). What stays int8 is what is fast in int8:
# the FULLY_CONNECTED layers (static, calibrated activations) and the embedding tables.
MIXED_FLOAT_OPS = (
    "BATCH_MATMUL", "SOFTMAX", "GELU", "MEAN", "SQUARED_DIFFERENCE", "RSQRT", "MUL", "SUB",
    "ADD", "NEG",
)


def _flat_outputs(outputs):
    # TFLite signatures need a flat {name: tensor} dict: a list output such as the encoder's
    # `encoder_outputs` becomes `encoder_outputs_0`, `encoder_outputs_1`, ...; a single tensor
    # (classifier, token classifier) is `logits`.
    if not isinstance(outputs, dict):
        return {"logits": outputs}
    flat = {}
    for name, value in outputs.items():
        if isinstance(value, (list, tuple)):
            flat.update({f"{name}_{i}": v for i, v in enumerate(value)})
        else:
            flat[name] = value
    return flat


def _representative_dataset(inputs, sequence_length, batch_size=1):
    """Calibration examples in batches, as `{ids, mask, segment_ids}` int32 `[batch, seq]`."""
    if inputs is None:
        raise ValueError(
            "mixed_int8 and full_int8 need representative_inputs: real examples (with padded ones) to "
            "calibrate the activation ranges."
        )
    expected = set(EXPORT_INPUTS.values())
    if set(inputs) != expected:
        raise ValueError(
            f"The calibration inputs must have exactly the keys {sorted(expected)} (the "
            f"model's input names), got {sorted(inputs)}."
        )
    exported = exported_inputs({k: np.asarray(v) for k, v in inputs.items()})
    count = len(exported["ids"])
    if count == 0:
        raise ValueError("The calibration set is empty: pass at least one example (100+ is usual).")
    for name, value in exported.items():
        if value.shape != (count, sequence_length):
            raise ValueError(
                f"Calibration input {name} has shape {value.shape}, expected "
                f"({count}, {sequence_length}) (the export sequence length)."
            )

    if count < batch_size:
        raise ValueError(f"Need at least batch_size={batch_size} calibration examples, got {count}.")

    def generate():
        for i in range(0, count - batch_size + 1, batch_size):
            yield {name: value[i : i + batch_size].astype(np.int32) for name, value in exported.items()}

    return generate


def convert_saved_model(saved_model_dir, quantization="float32", representative_dataset=None):
    """Converts a SavedModel's `serving_default` to TFLite flatbuffer bytes, builtin ops only.

    `quantization`: `float32`; `float16` (weights stored as float16); `dynamic_int8`
    (int8 weights, float activations); `mixed_int8` (int8 fully-connected layers and
    embeddings with calibrated activation ranges, `MIXED_FLOAT_OPS` in float32); `full_int8`
    (int8 weights and activations, calibrated on `representative_dataset`, a callable yielding
    input dicts; or a quantization-aware trained graph whose fake-quant ranges the converter
    reads). Integer inputs stay int32 and outputs stay float32, so every variant has the same
    interface.
    """
    if quantization not in QUANTIZATIONS:
        raise ValueError(f"quantization={quantization!r}; expected one of {QUANTIZATIONS}.")
    converter = tf.lite.TFLiteConverter.from_saved_model(saved_model_dir, [SIGNATURE])
    # Never SELECT_TF_OPS: the stock Android runtime cannot run Flex ops, so a model that
    # needs them must fail here rather than on a phone.
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    if quantization == "float16":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_types = [tf.float16]
    elif quantization == "dynamic_int8":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
    elif quantization == "full_int8":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        if representative_dataset is not None:
            converter.representative_dataset = representative_dataset
    elif quantization == "mixed_int8":
        # TFLite's selective quantization: calibrate everything, then quantize all but the
        # denylisted op types (float ops get QUANTIZE/DEQUANTIZE at their borders).
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = representative_dataset
        debugger = tf.lite.experimental.QuantizationDebugger(
            converter=converter, debug_dataset=representative_dataset,
            debug_options=tf.lite.experimental.QuantizationDebugOptions(
                denylisted_ops=list(MIXED_FLOAT_OPS)
            ),
        )
        return debugger.get_nondebug_quantized_model()
    return converter.convert()


def write_serving_saved_model(model, directory, sequence_length, batch_size=1):
    """Writes `model` with one `serving_default` endpoint on int32 `{ids, mask, segment_ids}`
    of fixed shape `[batch_size, sequence_length]`, the form TFLite converts."""
    encoder = getattr(model, "encoder", model)
    limit = getattr(encoder, "max_position_embeddings", None)
    if limit is not None and not 1 <= sequence_length <= limit:
        raise ValueError(
            f"sequence_length={sequence_length}: this model takes 1 to {limit} tokens "
            f"(max_position_embeddings={limit})."
        )
    archive = keras.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint(
        SIGNATURE,
        lambda ids, mask, segment_ids: _flat_outputs(
            model(model_inputs({"ids": ids, "mask": mask, "segment_ids": segment_ids}), training=False)
        ),
        input_signature=[
            tf.TensorSpec([batch_size, sequence_length], tf.int32, name=name) for name in EXPORT_INPUTS
        ],
    )
    archive.write_out(directory, verbose=False)


def export_tflite(
    model, path, sequence_length, quantization="float32", representative_inputs=None, batch_size=1
):
    """Converts a keras_bert model to a `.tflite` file with TFLite builtin ops only: the bytes of
    `convert_model` with the same arguments, written by `write_atomically` (a temporary name,
    then a rename), so a failed or killed conversion leaves no partial model. Returns `path`
    as a str."""
    flatbuffer = convert_model(model, sequence_length, quantization, representative_inputs, batch_size)
    write_atomically(path, flatbuffer)
    return os.fspath(path)


def convert_model(model, sequence_length, quantization="float32", representative_inputs=None,
                  batch_size=1):
    """Converts a keras_bert model to TFLite flatbuffer bytes with TFLite builtin ops only.

    The graph is traced at a fixed `[batch_size, sequence_length]` on int32 inputs `ids`,
    `mask` and `segment_ids` (the TFLite BERT QA example's names), exported through
    `keras.export.ExportArchive` (which keeps the weights; a bare `tf.Module` wrapper can drop
    them) and converted without Flex ops.

    Args:
        model: a keras_bert model taking `{token_ids, segment_ids, padding_mask}`.
        sequence_length: int, the fixed input length (384 for the QA app contract).
        quantization: one of `QUANTIZATIONS`. `full_int8` of a float keras_bert task model
            (question answerer, classifier, token classifier) converts its int8 graph
            (`keras_bert.export.quantization.qat.int8_graph`: outlier dimensions in their own int8 tensors,
            the mask and scores on fixed grids); a `quantize_aware` model is converted as trained.
        representative_inputs: for `mixed_int8` and `full_int8`, a dict of int arrays `[n, sequence_length]`
            with the model's input names: real examples, padded ones included (the attention
            mask's range must be seen).
        batch_size: int, the fixed batch size. Defaults to 1.

    Returns:
        bytes, the flatbuffer.
    """
    if quantization not in QUANTIZATIONS:
        raise ValueError(f"quantization={quantization!r}; expected one of {QUANTIZATIONS}.")
    dataset = None
    if quantization in CALIBRATED:
        dataset = _representative_dataset(representative_inputs, sequence_length, batch_size)
    if quantization == "full_int8":
        import keras_bert

        task_models = (keras_bert.BertQuestionAnswerer, keras_bert.BertClassifier,
                       keras_bert.BertTokenClassifier)
        if isinstance(model, task_models):
            from keras_bert.export.quantization.qat import int8_graph

            model = int8_graph(model, representative_inputs)
    with tempfile.TemporaryDirectory() as saved_model_dir:
        write_serving_saved_model(model, saved_model_dir, sequence_length, batch_size)
        return convert_saved_model(saved_model_dir, quantization, dataset)


def write_atomically(path, data):
    """Writes bytes to `path` through a temporary file in the same directory and a rename, and
    its SHA-256 to the folder's `SHA256SUMS` (`keras_bert.integrity`)."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would hide the model from other users
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    # The folder's SHA256SUMS gets this file's digest: loaders that find it verify the bytes.
    integrity.write_manifest(directory, [os.path.basename(path)])


def run_tflite(path, inputs, num_threads=1):
    """Runs a `.tflite` file with ai-edge-litert; returns `{output_name: np.ndarray}`.

    `inputs` may use the exported names (`ids`, `mask`, `segment_ids`) or the model's
    (`token_ids`, `padding_mask`, `segment_ids`). Inputs and outputs are matched by name
    through the signature runner, never by position.
    """
    runner = tflite_runner(path, num_threads)
    if "token_ids" in inputs:
        inputs = exported_inputs(inputs)
    return runner(**{name: np.asarray(value, np.int32) for name, value in inputs.items()})


def tflite_runner(path, num_threads=1):
    """The signature runner of a single-signature `.tflite` (ai-edge-litert)."""
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        raise ImportError(
            "Running .tflite files needs ai-edge-litert: pip install 'keras-exact-bert[export]'."
        ) from None
    interpreter = Interpreter(model_path=os.fspath(path), num_threads=num_threads)
    signatures = list(interpreter.get_signature_list())
    if len(signatures) != 1:
        raise ValueError(f"{path} has signatures {signatures}; expected exactly one.")
    return interpreter.get_signature_runner(signatures[0])


def tflite_op_names(path):
    """The set of operator names in a `.tflite` file (e.g. `{"FULLY_CONNECTED", "GELU"}`)."""
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_path=os.fspath(path))
    return {op["op_name"] for op in interpreter._get_ops_details()}
