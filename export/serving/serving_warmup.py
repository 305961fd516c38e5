"""TF Serving warmup records (`assets.extra/tf_serving_warmup_requests`) for any SavedModel.

TF Serving runs these requests once when it loads a model version, so the first real request
does not pay for lazy initialization (tensorflow/serving g3doc/saved_model_warmup.md): a
TFRecord file of `PredictionLog` protos, at most 1000 records, in `assets.extra/` of the
version directory. Each record holds a gRPC `PredictRequest`, so the same protos also serve
as examples of the gRPC request form.
"""

import os

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import saved_model_pb2

try:
    from tensorflow_serving.apis import predict_pb2
    from tensorflow_serving.apis import prediction_log_pb2
except ImportError:
    predict_pb2 = prediction_log_pb2 = None

WARMUP_FILE = os.path.join("assets.extra", "tf_serving_warmup_requests")
MAX_WARMUP_REQUESTS = 1000  # TF Serving reads no more (saved_model_warmup.md)
DEFAULT_SIGNATURE = "serving_default"


def _require_serving_api():
    if predict_pb2 is None:
        raise ImportError(
            "Warmup records need the TF Serving protos: pip install tensorflow-serving-api."
        )


def _signature_defs(saved_model_dir):
    path = os.path.join(saved_model_dir, "saved_model.pb")
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"{saved_model_dir} is not a SavedModel version directory (no saved_model.pb). "
            "Pass the version folder TF Serving loads, e.g. <base>/<model_name>/1."
        )
    with open(path, "rb") as f:
        saved_model = saved_model_pb2.SavedModel.FromString(f.read())
    for meta_graph in saved_model.meta_graphs:
        if "serve" in meta_graph.meta_info_def.tags:
            return {k: v for k, v in meta_graph.signature_def.items() if not k.startswith("__")}
    raise ValueError(f"{saved_model_dir} has no MetaGraph tagged 'serve'; TF Serving loads that.")


def _as_input_array(value, info, where):
    """`value` as an array of the signature input's dtype, or a ValueError saying what to pass."""
    dtype = tf.as_dtype(info.dtype)
    try:
        array = np.asarray(value, dtype=object if dtype == tf.string else None)
    except ValueError as e:  # NumPy refuses ragged nested lists
        raise ValueError(f"{where} is ragged ({e}); pad it to a rectangular shape.") from None
    if dtype == tf.string:
        if not all(isinstance(v, (str, bytes)) for v in array.flat):
            raise ValueError(f"{where} is {dtype.name}: pass str or bytes values in a "
                             "rectangular nested list.")
        array = np.array([v.encode() if isinstance(v, str) else v for v in array.flat],
                         dtype=object).reshape(array.shape)
    elif dtype.is_integer:
        if array.dtype.kind not in "iu":
            raise ValueError(f"{where} is {dtype.name}; got {array.dtype} values: pass integers.")
        if array.size and (array.min() < dtype.min or array.max() > dtype.max):
            raise ValueError(f"{where} is {dtype.name}; values out of its range.")
    elif dtype.is_floating or dtype == tf.bool:
        kinds = "b" if dtype == tf.bool else "fiu"
        if array.dtype.kind not in kinds:
            raise ValueError(f"{where} is {dtype.name}; got {array.dtype} values.")
    else:
        raise ValueError(f"{where} is {dtype.name}, which warmup requests here do not support.")
    shape = info.tensor_shape
    expected = [dim.size for dim in shape.dim]
    if not shape.unknown_rank and (
        len(expected) != array.ndim or any(e not in (-1, a) for e, a in zip(expected, array.shape))
    ):
        raise ValueError(f"{where} has shape {list(array.shape)}; the signature takes "
                         f"{expected} (-1: any size).")
    return array.astype(dtype.as_numpy_dtype) if dtype != tf.string else array


def _predict_request(index, request, signature_defs, model_name):
    where = f"requests[{index}]"
    if not isinstance(request, dict) or set(request) - {"signature_name", "inputs"}:
        raise ValueError(
            f'{where} must be a dict {{"signature_name": str (optional, default '
            f'"{DEFAULT_SIGNATURE}"), "inputs": {{input_name: array}}}}; got {request!r:.200}.'
        )
    signature_name = request.get("signature_name") or DEFAULT_SIGNATURE
    if signature_name not in signature_defs:
        raise ValueError(f'{where}: signature "{signature_name}" is not in the SavedModel; it has '
                         f"{sorted(signature_defs)}.")
    inputs = request.get("inputs")
    specs = signature_defs[signature_name].inputs
    if not isinstance(inputs, dict) or set(inputs) != set(specs):
        got = sorted(inputs) if isinstance(inputs, dict) else type(inputs).__name__
        raise ValueError(f'{where}: signature "{signature_name}" takes inputs {sorted(specs)}; '
                         f"got {got}. Pass every input, and only those, by name.")
    proto = predict_pb2.PredictRequest()
    proto.model_spec.name = model_name
    proto.model_spec.signature_name = signature_name
    for name in sorted(specs):
        array = _as_input_array(inputs[name], specs[name], f'{where} input "{name}"')
        proto.inputs[name].CopyFrom(tf.make_tensor_proto(array, dtype=specs[name].dtype))
    return proto


def write_warmup_requests(saved_model_dir, requests, model_name=None):
    """Writes TF Serving warmup records into a SavedModel version directory.

    Every request is checked against the SavedModel's `serve` signatures (signature and input
    names, dtypes, shapes) before anything is written, so a bad request fails here rather than
    when TF Serving loads the model.

    Args:
        saved_model_dir: str, the version directory (`<base>/<model_name>/<version>`).
        requests: iterable of dicts `{"signature_name": str (optional, default
            "serving_default"), "inputs": {input_name: array-like}}` (strings as str or bytes),
            1 to 1000 of them.
        model_name: str, the `model_spec.name` in each request. Defaults to the name of the
            folder above `saved_model_dir` when `saved_model_dir` is a numeric version folder,
            else "".

    Returns:
        str, the path of the written `assets.extra/tf_serving_warmup_requests`.
    """
    _require_serving_api()
    signature_defs = _signature_defs(saved_model_dir)
    requests = list(requests)
    if not 1 <= len(requests) <= MAX_WARMUP_REQUESTS:
        raise ValueError(f"Got {len(requests)} warmup requests; TF Serving reads 1 to "
                         f"{MAX_WARMUP_REQUESTS}. A few representative ones are enough.")
    if model_name is None:
        version_dir = os.path.abspath(saved_model_dir)
        is_version = os.path.basename(version_dir).isdigit()
        model_name = os.path.basename(os.path.dirname(version_dir)) if is_version else ""
    protos = [_predict_request(i, r, signature_defs, model_name) for i, r in enumerate(requests)]
    path = os.path.join(saved_model_dir, WARMUP_FILE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tf.io.TFRecordWriter(path) as writer:
        for proto in protos:
            log = prediction_log_pb2.PredictionLog()
            log.predict_log.request.CopyFrom(proto)
            writer.write(log.SerializeToString())
    return path


def read_warmup_requests(saved_model_dir):
    """The `PredictRequest` protos of a SavedModel's warmup file, in order.

    Args:
        saved_model_dir: str, the version directory holding `assets.extra/`.

    Returns:
        list of `tensorflow_serving.apis.predict_pb2.PredictRequest`.
    """
    _require_serving_api()
    path = os.path.join(saved_model_dir, WARMUP_FILE)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"No warmup file at {path}; write one with write_warmup_requests.")
    requests = []
    for i, record in enumerate(tf.data.TFRecordDataset(path).as_numpy_iterator()):
        log = prediction_log_pb2.PredictionLog.FromString(record)
        if log.WhichOneof("log_type") != "predict_log":
            raise ValueError(f"Record {i} of {path} is a {log.WhichOneof('log_type')}, "
                             "not a predict_log.")
        requests.append(log.predict_log.request)
    return requests


def run_predict_request(saved_model, request):
    """Runs a gRPC-form `PredictRequest` through a SavedModel signature, as TF Serving would.

    Args:
        saved_model: the result of `tf.saved_model.load`, or a SavedModel directory path.
        request: `predict_pb2.PredictRequest`; an empty `model_spec.signature_name` means
            "serving_default".

    Returns:
        dict `{output_name: np.ndarray}`.
    """
    if isinstance(saved_model, (str, os.PathLike)):
        saved_model = tf.saved_model.load(os.fspath(saved_model), tags=["serve"])
    signature_name = request.model_spec.signature_name or DEFAULT_SIGNATURE
    if signature_name not in saved_model.signatures:
        raise ValueError(f'Signature "{signature_name}" is not in the SavedModel; it has '
                         f"{sorted(saved_model.signatures)}.")
    inputs = {name: tf.make_ndarray(tensor) for name, tensor in request.inputs.items()}
    outputs = saved_model.signatures[signature_name](**inputs)
    return {name: tensor.numpy() for name, tensor in outputs.items()}
