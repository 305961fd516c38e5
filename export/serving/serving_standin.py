"""A loopback stand-in for tensorflow_model_server's REST API, to test SavedModel exports here.

`tensorflow_model_server` cannot be installed on these machines, so this script answers the
same REST calls from the same SavedModel directory layout, with TF Serving's JSON shapes
(tensorflow/serving: g3doc/api_rest.md, util/json_tensor.cc). Run it as a file, so the
`export` package (and with it Keras) is never imported:

    python export/serving/serving_standin.py --model_base_path=/models/qa --model_name=qa --port=8501

It loads the highest numeric version under `--model_base_path` (TF Serving's default version
policy) and serves, on 127.0.0.1 only:

    GET  /v1/models/NAME[/versions/V]            model status
    GET  /v1/models/NAME[/versions/V]/metadata   the SignatureDefs, as TF Serving prints them
    POST /v1/models/NAME[/versions/V]:predict    row ("instances") or columnar ("inputs") JSON

Errors come back as `{"error": "..."}`: HTTP 404 for an unknown model or version, 400 for a bad
request or a model-side `InvalidArgumentError`, and the server keeps serving. Each request is
bounded before the model sees it (flags, defaults in brackets): its body [1 MiB,
--max_body_bytes; 413 before any of it is read], each string in it [8,000 characters,
--max_text_chars; 400] and the 384-token windows it can produce [64, --max_windows; 400].
Stricter than TF Serving on purpose: unknown request keys and unknown named inputs are errors
(TF Serving ignores them silently). Floats are written as the shortest text that reads back to
the same value; a string output that is not UTF-8 comes back as `{"b64": ...}` (TF Serving
would emit raw bytes).

Like tensorflow_model_server, which links TF Text's C++ ops and has no Python at all, this
server refuses to import Keras or keras_bert: a model that serves here needs neither. TF Text
ops are registered by loading tensorflow_text's op libraries (the `.so` files that
`import tensorflow_text` loads), because tensorflow_text's Python package imports Keras.
"""

import argparse
import base64
import binascii
import glob
import http.server
import importlib.abc
import importlib.machinery
import importlib.util
import json
import math
import os
import re
import socket
import sys
import threading
import time

_REFUSED_MODULES = ("keras", "keras_bert", "tf_keras")


class _RefuseImports(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes `import keras` (and keras_bert, tf_keras) fail, as if they were not installed."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in _REFUSED_MODULES:
            return importlib.machinery.ModuleSpec(name, self)  # no origin: "not installed"
        return None

    def create_module(self, spec):
        raise ImportError(f"serving_standin serves SavedModels without {spec.name}.")

    def exec_module(self, module):
        pass


if __name__ == "__main__":
    # Before TensorFlow: `import tensorflow` imports Keras when it is installed, but tolerates
    # its absence.
    sys.meta_path.insert(0, _RefuseImports())

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf import saved_model_pb2  # noqa: E402

DEFAULT_SIGNATURE = "serving_default"
_PREDICT_PATH = re.compile(r"/v1/models/([^/:]+)(?:/versions/(\d+))?:(\w+)", re.IGNORECASE)
_MODEL_PATH = re.compile(r"/v1/models/([^/:]+)(?:/versions/(\d+))?(/metadata)?", re.IGNORECASE)
_REQUEST_KEYS = ("signature_name", "instances", "inputs")


class RequestError(ValueError):
    """A request TF Serving would refuse: HTTP `status` and body `{"error": message}`."""

    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status


# === Signatures ===


def read_signature_defs(saved_model_dir):
    """`{name: SignatureDef}` of the `serve` MetaGraph in `saved_model_dir/saved_model.pb`."""
    saved_model = saved_model_pb2.SavedModel()
    with open(os.path.join(saved_model_dir, "saved_model.pb"), "rb") as f:
        saved_model.ParseFromString(f.read())
    for meta_graph in saved_model.meta_graphs:
        if "serve" in meta_graph.meta_info_def.tags:
            return dict(meta_graph.signature_def)
    raise ValueError(f"{saved_model_dir} has no MetaGraph tagged 'serve' (what TF Serving loads).")


def input_specs(signature_def):
    """`{input_name: (tf.DType, shape)}`; shape is a list with -1 for any size, or None."""
    specs = {}
    for name, info in signature_def.inputs.items():
        shape = info.tensor_shape
        specs[name] = (
            tf.as_dtype(info.dtype),
            None if shape.unknown_rank else [dim.size for dim in shape.dim],
        )
    return specs


def _proto_json(message):
    """A proto as TF Serving prints it (proto3 JSON, field names kept, defaults included)."""
    out = {}
    for field in message.DESCRIPTOR.fields:
        value = getattr(message, field.name)
        entry = field.message_type
        if entry is not None and entry.GetOptions().map_entry:
            value_field = entry.fields_by_name["value"]
            out[field.name] = {str(k): _field_json(value_field, value[k]) for k in sorted(value)}
        elif field.is_repeated:
            out[field.name] = [_field_json(field, v) for v in value]
        elif field.type == field.TYPE_MESSAGE or field.containing_oneof is not None:
            if message.HasField(field.name):
                out[field.name] = _field_json(field, value)
        else:
            out[field.name] = _field_json(field, value)
    return out


def _field_json(field, value):
    if field.type == field.TYPE_MESSAGE:
        return _proto_json(value)
    if field.type == field.TYPE_ENUM:
        enum_value = field.enum_type.values_by_number.get(value)
        return enum_value.name if enum_value else value
    if field.type in (field.TYPE_INT64, field.TYPE_UINT64, field.TYPE_SINT64,
                      field.TYPE_FIXED64, field.TYPE_SFIXED64):
        return str(value)  # proto3 JSON writes 64-bit integers as strings
    if field.type == field.TYPE_BYTES:
        return base64.b64encode(value).decode("ascii")
    return value


# === JSON -> tensors (util/json_tensor.cc semantics) ===


def _is_b64(value):
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get("b64"), str)


def _is_object(value):
    return isinstance(value, dict) and not _is_b64(value)


def _json_type(value):
    if isinstance(value, bool):
        return "Boolean"
    return {int: "Number", float: "Number", str: "String", list: "Array", dict: "Object"}.get(
        type(value), "Null")


def _type_error(value, dtype, name, where):
    return RequestError(
        f'input "{name}" is {dtype.name}, but the JSON value {json.dumps(value)} '
        f"({_json_type(value)}) at {where} is not of that type."
    )


def _leaf_reader(dtype, name):
    """A function `(json_scalar, where) -> value of dtype` raising RequestErrors that explain."""
    if dtype == tf.string:
        def read(value, where):
            if isinstance(value, str):
                return value.encode("utf-8")
            if not _is_b64(value):
                raise _type_error(value, dtype, name, where)
            try:
                return base64.b64decode(value["b64"], validate=True)
            except binascii.Error:
                raise RequestError(f'input "{name}": {where} is not valid base64.') from None
        return read
    is_bool, is_int = dtype == tf.bool, dtype.is_integer
    if is_bool:
        kinds = bool
    elif is_int:
        kinds, low, high = int, dtype.min, dtype.max
    elif dtype in (tf.float16, tf.float32, tf.float64):
        info = np.finfo(dtype.as_numpy_dtype)
        kinds, exact, largest = (int, float), 2 ** (info.nmant + 1), float(info.max)
    else:
        raise RequestError(f'input "{name}" is {dtype.name}, which JSON requests cannot carry.')

    def read(value, where):
        if not isinstance(value, kinds) or isinstance(value, bool) != is_bool:
            raise _type_error(value, dtype, name, where)
        if is_int and not low <= value <= high:
            raise RequestError(f'input "{name}": {value} at {where} is outside {dtype.name}.')
        if not (is_int or is_bool) and (
            abs(value) >= exact if isinstance(value, int)
            else math.isfinite(value) and abs(value) > largest
        ):
            # As TF Serving: refuse integers beyond the mantissa and floats beyond the range.
            raise RequestError(
                f"Cannot convert JSON value: {value} to {dtype.name} without loss of precision."
            )
        return value

    return read


def _fill(value, shape, level, read, name, where, out):
    if isinstance(value, list):
        if level >= len(shape) or len(value) != shape[level]:
            raise RequestError(
                f'input "{name}" is ragged: the list at {where} has {len(value)} elements where '
                f"the first elements give shape {shape}. Every list at one depth must have the "
                "same length: pad the rows."
            )
        for i, item in enumerate(value):
            _fill(item, shape, level + 1, read, name, f"{where}[{i}]", out)
    elif level != len(shape):
        raise RequestError(
            f'input "{name}" is ragged: {json.dumps(value)} at {where} sits at depth {level}, '
            f"but the first elements give shape {shape}."
        )
    else:
        out.append(read(value, where))


def tensor_from_json(value, dtype, name, where):
    """A (nested-list) JSON value as an np.ndarray of `dtype`; its shape from the first elements."""
    shape, probe = [], value
    while isinstance(probe, list):
        shape.append(len(probe))
        probe = probe[0] if probe else None
    flat = []
    _fill(value, shape, 0, _leaf_reader(dtype, name), name, where, flat)
    array = np.empty(len(flat), dtype=object if dtype == tf.string else dtype.as_numpy_dtype)
    array[:] = flat
    return array.reshape(shape)


def _check_names(got, names, where):
    missing, unknown = sorted(set(names) - set(got)), sorted(set(got) - set(names))
    if missing or unknown:
        raise RequestError(
            f"{where} has keys {sorted(got)}, but the signature's inputs are {sorted(names)}"
            f" (missing: {missing}, unknown: {unknown})."
        )


def _from_instances(instances, specs):
    if not isinstance(instances, list) or not instances:
        raise RequestError("'instances' must be a non-empty list, one element per example.")
    names = sorted(specs)
    named = _is_object(instances[0])
    if not named and len(names) > 1:
        raise RequestError(
            f"'instances' is a plain list, but the signature has inputs {names}: send a list of "
            "objects with one key per input."
        )
    columns = {name: [] for name in names}
    for i, instance in enumerate(instances):
        if _is_object(instance) != named:
            raise RequestError(f"instances[{i}] is {'not ' if named else ''}an object, unlike "
                               "instances[0]; all instances must have the same form.")
        items = instance if named else {names[0]: instance}
        _check_names(items, names, f"instances[{i}]")
        for name in names:
            tensor = tensor_from_json(items[name], specs[name][0], name, f"instances[{i}]")
            if columns[name] and columns[name][0].shape != tensor.shape:
                raise RequestError(
                    f'ragged instances: input "{name}" has shape {list(tensor.shape)} in '
                    f"instances[{i}] but {list(columns[name][0].shape)} in instances[0]. Pad them "
                    "to one shape, or send the columnar 'inputs' format."
                )
            columns[name].append(tensor)
    return {name: np.stack(column) for name, column in columns.items()}


def _from_columns(inputs, specs):
    names = sorted(specs)
    if not _is_object(inputs):
        if len(names) > 1:
            raise RequestError(
                f"'inputs' is a plain value, but the signature has inputs {names}: send an "
                "object {input_name: value}."
            )
        return {names[0]: tensor_from_json(inputs, specs[names[0]][0], names[0], "inputs")}
    _check_names(inputs, names, "'inputs'")
    return {n: tensor_from_json(inputs[n], specs[n][0], n, f"inputs.{n}") for n in names}


# Limits of a request's content (flags of the same names), checked on the parsed JSON before any
# tensor is built: the characters of any one string (a context), and the windows a request may
# produce. A window is counted as keras_bert's `serve_text` cuts them (export/serving/
# squad_signature.py defaults): 384 tokens, of which at least 384 - 64 - 3 = 317 are context
# (a question of at most 64 tokens, [CLS] and two [SEP]), at a stride of 128 tokens. Only a
# `context` input is cut into windows; any other instance is one window (a classifier's text
# is truncated to one). Counted at one token per character, an upper bound: a WordPiece token
# spans at least one character. With these defaults one longest context is 62 windows.
MAX_TEXT_CHARS = 8_000
MAX_WINDOWS = 64
WINDOW_TOKENS, WINDOW_ROOM, WINDOW_STRIDE = 384, 384 - 64 - 3, 128
WINDOWED_INPUT = "context"


def context_windows(length):
    """The most windows a context of `length` characters can produce (at least 1)."""
    return 1 + max(0, -(-(length - WINDOW_ROOM) // WINDOW_STRIDE))


def _string_lengths(value):
    """The length of every string in a JSON value (b64 strings: their decoded bytes)."""
    lengths, stack = [], [value]
    while stack:  # a loop, not recursion: any nesting the JSON parser accepted
        value = stack.pop()
        if isinstance(value, str):
            lengths.append(len(value))
        elif _is_b64(value):
            lengths.append(len(value["b64"]) * 3 // 4)
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
    return lengths


def check_request_limits(request, names, max_text_chars, max_windows):
    """Refuses (`RequestError` 400) a parsed request over the limits, before tensors are built.

    Args:
        request: the parsed JSON object, with 'instances' or 'inputs'.
        names: list of str, the signature's input names (a bare value is the only one's).
        max_text_chars: int or None, the most characters any one string may have.
        max_windows: int or None, the most windows of `WINDOW_TOKENS` the request may produce.
    """
    if not names:
        return
    if "instances" in request:
        rows = request["instances"] if isinstance(request["instances"], list) else []
        what = f"{len(rows):,} instances"
        named = bool(rows) and _is_object(rows[0])
        columns = ({n: [r.get(n) if _is_object(r) else None for r in rows] for n in names}
                   if named else {names[0]: rows})
        at = lambda name, i: f"instances[{i}]"  # noqa: E731
    else:
        inputs = request["inputs"]
        named = _is_object(inputs)
        columns = {n: inputs.get(n) for n in names} if named else {names[0]: inputs}
        columns = {n: v if isinstance(v, list) else [v] for n, v in columns.items()}
        rows = max(columns.values(), key=len)  # the batch: the longest input's
        what = f"a batch of {len(rows):,}"
        at = lambda name, i: f"inputs{'.' + name if named else ''}[{i}]"  # noqa: E731
    if max_windows is not None and len(rows) > max_windows:
        raise RequestError(
            f"This request has {what}, over this server's limit of {max_windows:,} windows of "
            f"{WINDOW_TOKENS} tokens per request, one or more per instance (--max_windows): "
            f"send at most {max_windows:,} per request, or restart the server with a larger "
            "--max_windows."
        )
    windows, longest = len(rows), 0
    for name, column in sorted(columns.items()):
        for i, value in enumerate(column):
            lengths = _string_lengths(value)
            length = max(lengths, default=0)
            if max_text_chars is not None and length > max_text_chars:
                raise RequestError(
                    f'input "{name}" at {at(name, i)} is {length:,} characters long, over this '
                    f"server's limit of {max_text_chars:,} per string (--max_text_chars): split "
                    f"the text into passages of at most {max_text_chars:,} characters, one per "
                    "instance, or restart the server with a larger --max_text_chars."
                )
            if name == WINDOWED_INPUT and lengths:
                windows += sum(context_windows(n) for n in lengths) - 1
                longest = max(longest, length)
    if max_windows is not None and windows > max_windows:
        raise RequestError(
            f"This request can produce up to {windows:,} windows of {WINDOW_TOKENS} tokens "
            f'({what}, input "{WINDOWED_INPUT}" up to {longest:,} characters, counted at one '
            f"token per character), over this server's limit of {max_windows:,} per request "
            f"(--max_windows): send fewer or shorter contexts per request, or restart the "
            "server with a larger --max_windows."
        )


def decode_predict_request(body, signature_defs, max_text_chars=None, max_windows=None):
    """Parses a :predict body; returns `(signature_name, "row" | "columnar", {name: array})`.

    Args:
        body: bytes or str, the JSON request.
        signature_defs: `{name: SignatureDef}` of the served model.
        max_text_chars, max_windows: int or None (no limit): see `check_request_limits`.

    Returns:
        The signature to run, the request format (it decides the response format) and the
        inputs as NumPy arrays of the signature's dtypes, checked against its shapes.
    """
    try:
        request = json.loads(body)
    except ValueError as e:  # includes UnicodeDecodeError
        raise RequestError(f"JSON Parse error: {e}") from None
    if not isinstance(request, dict):
        raise RequestError('The request must be a JSON object: {"instances": [...]} or '
                           '{"inputs": ...}, with an optional "signature_name".')
    unknown = sorted(set(request) - set(_REQUEST_KEYS))
    if unknown:
        raise RequestError(f"Unknown request keys {unknown}; a predict request has "
                           "'signature_name' and one of 'instances' or 'inputs'.")
    signature_name = request.get("signature_name", DEFAULT_SIGNATURE)
    if not isinstance(signature_name, str):
        raise RequestError("'signature_name' key must be a string value.")
    signature_name = signature_name or DEFAULT_SIGNATURE
    if signature_name not in signature_defs or signature_name.startswith("__"):
        served = sorted(s for s in signature_defs if not s.startswith("__"))
        raise RequestError(f'Serving signature name: "{signature_name}" not found in signature '
                           f"def; this model has {served}.")
    if ("instances" in request) == ("inputs" in request):
        raise RequestError("Send exactly one of 'instances' (row format) or 'inputs' "
                           "(columnar format); this request has "
                           f"{'both' if 'inputs' in request else 'neither'}.")
    specs = input_specs(signature_defs[signature_name])
    check_request_limits(request, sorted(specs), max_text_chars, max_windows)
    if "instances" in request:
        form, inputs = "row", _from_instances(request["instances"], specs)
    else:
        form, inputs = "columnar", _from_columns(request["inputs"], specs)
    for name, array in inputs.items():
        expected = specs[name][1]
        if expected is not None and (
            len(expected) != array.ndim
            or any(e not in (-1, a) for e, a in zip(expected, array.shape))
        ):
            raise RequestError(f'input "{name}" has shape {list(array.shape)}, but signature '
                               f'"{signature_name}" takes {expected} (-1: any size).')
    return signature_name, form, inputs


# === Tensors -> JSON ===


def _json_value(value, as_bytes):
    value = np.asarray(value)
    if value.ndim:
        return "[" + ",".join(_json_value(item, as_bytes) for item in value) + "]"
    kind = value.dtype.kind
    if kind == "f":
        if np.isnan(value):
            return "NaN"
        if np.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return str(value[()])  # NumPy's shortest text that reads back to this float
    if kind == "b":
        return "true" if value else "false"
    if kind in "iu":
        return str(int(value))
    if kind in "OSU":
        item = value.item()
        data = item.encode("utf-8") if isinstance(item, str) else bytes(item)
        if not as_bytes:
            try:
                return json.dumps(data.decode("utf-8"), ensure_ascii=False)
            except UnicodeDecodeError:
                pass
        return '{"b64":' + json.dumps(base64.b64encode(data).decode("ascii")) + "}"
    raise RequestError(f"Failed to write JSON value for tensor type: {value.dtype}", status=500)


def encode_predict_response(outputs, form):
    """TF Serving's JSON for `{name: np.ndarray}` outputs of a `form` ("row"/"columnar") request.

    One output: `predictions` is a list of values (row) and `outputs` the bare value (columnar).
    Several: a list of `{name: value}` objects (row) and one `{name: value}` object (columnar).
    String outputs whose name ends in `_bytes` are written as `{"b64": ...}`.
    """
    names = sorted(outputs)
    encode = {name: (lambda v, b=name.endswith("_bytes"): _json_value(v, b)) for name in names}
    if form == "columnar":
        if len(names) == 1:
            return '{"outputs":' + encode[names[0]](outputs[names[0]]) + "}"
        items = (f"{json.dumps(n)}:{encode[n](outputs[n])}" for n in names)
        return '{"outputs":{' + ",".join(items) + "}}"
    batch_sizes = {name: np.shape(outputs[name])[:1] for name in names}
    if any(not size for size in batch_sizes.values()) or len(set(batch_sizes.values())) > 1:
        raise RequestError(f"Row format needs every output batched alike; output batch sizes "
                           f"are {batch_sizes}. Use the columnar 'inputs' format.")
    rows = []
    for i in range(batch_sizes[names[0]][0]):
        if len(names) == 1:
            rows.append(encode[names[0]](outputs[names[0]][i]))
        else:
            rows.append("{" + ",".join(f"{json.dumps(n)}:{encode[n](outputs[n][i])}"
                                       for n in names) + "}")
    return '{"predictions":[' + ",".join(rows) + "]}"


# === The served model ===


def latest_version(model_base_path):
    """`(version, path)` of the highest numeric subdirectory holding a saved_model.pb."""
    if not os.path.isdir(model_base_path):
        raise FileNotFoundError(f"--model_base_path {model_base_path} is not a folder.")
    versions = [
        int(name) for name in os.listdir(model_base_path)
        if name.isdigit() and os.path.isfile(os.path.join(model_base_path, name, "saved_model.pb"))
    ]
    if not versions:
        raise FileNotFoundError(
            f"No version under {model_base_path}: TF Serving expects "
            "<model_base_path>/<integer version>/saved_model.pb (e.g. /models/qa/1/)."
        )
    return max(versions), os.path.join(model_base_path, str(max(versions)))


def load_text_ops():
    """Registers tensorflow_text's ops from its op libraries; returns the files loaded."""
    spec = importlib.util.find_spec("tensorflow_text")  # finds the package without running it
    if spec is None or not spec.origin:
        return []
    root = os.path.dirname(spec.origin)
    libraries = sorted(glob.glob(os.path.join(root, "python", "**", "_*.so"), recursive=True))
    for library in libraries:
        tf.load_op_library(library)
    return libraries


def _integrity():
    """keras_bert/integrity.py, loaded by its path: importing keras_bert is refused here."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(root, "keras_bert", "integrity.py")
    spec = importlib.util.spec_from_file_location("_keras_bert_integrity", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ServedModel:
    """One model version and the REST routes over it (no HTTP here: see `_Handler`).

    Args:
        model_base_path: str, the folder holding numeric version folders.
        model_name: str, the NAME in `/v1/models/NAME`.
        debug_modules: bool, also answer `GET /v1/debug/modules` with the imported top-level
            module names (for tests that check what the server needed). Defaults to False.
        max_text_chars, max_windows: int or None, a request's limits (`check_request_limits`).
    """

    def __init__(self, model_base_path, model_name, debug_modules=False,
                 max_text_chars=MAX_TEXT_CHARS, max_windows=MAX_WINDOWS):
        self.model_name = model_name
        self.max_text_chars, self.max_windows = max_text_chars, max_windows
        self.version, self.path = latest_version(model_base_path)
        # Before anything reads the files: a version with a SHA256SUMS (keras_bert's exports
        # write one) must match it, so a corrupted weight is an error, not wrong answers.
        self.files_verified = _integrity().verify_files(self.path)
        self.signature_defs = read_signature_defs(self.path)
        self.debug_modules = debug_modules
        self._model = tf.saved_model.load(self.path, tags=["serve"])
        self._lock = threading.Lock()

    def _check_model(self, name, version):
        if name != self.model_name or (version is not None and int(version) != self.version):
            wanted = f"Specific({name}, {version})" if version else f"Latest({name})"
            raise RequestError(f"Servable not found for request: {wanted}", status=404)

    def get(self, path):
        """Answers a GET; returns `(http_status, json_text)`."""
        if self.debug_modules and path == "/v1/debug/modules":
            return 200, json.dumps({"modules": sorted({m.split(".")[0] for m in sys.modules})})
        match = _MODEL_PATH.fullmatch(path)
        if not match:
            raise RequestError(f"Malformed request: GET {path}", status=404)
        name, version, metadata = match.groups()
        self._check_model(name, version)
        if metadata:
            signatures = {k: _proto_json(v) for k, v in sorted(self.signature_defs.items())}
            return 200, json.dumps({
                "model_spec": {"name": name, "signature_name": "", "version": str(self.version)},
                "metadata": {"signature_def": {"signature_def": signatures}},
            }, indent=1)
        status = {"error_code": "OK", "error_message": ""}
        return 200, json.dumps({"model_version_status": [
            {"version": str(self.version), "state": "AVAILABLE", "status": status}]}, indent=1)

    def post(self, path, body):
        """Answers a POST (`:predict`); returns `(http_status, json_text)`."""
        match = _PREDICT_PATH.fullmatch(path)
        if not match:
            raise RequestError(f"Malformed request: POST {path}", status=404)
        name, version, method = match.groups()
        self._check_model(name, version)
        if method.lower() != "predict":
            raise RequestError(f"The stand-in implements :predict only, not :{method}.", 501)
        signature_name, form, inputs = decode_predict_request(
            body, self.signature_defs, self.max_text_chars, self.max_windows)
        return 200, encode_predict_response(self.predict(signature_name, inputs), form)

    def predict(self, signature_name, inputs):
        """Runs a signature on `{name: np.ndarray}`; returns `{name: np.ndarray}`."""
        function = self._model.signatures[signature_name]
        try:
            with self._lock:
                outputs = function(**{name: tf.constant(v) for name, v in inputs.items()})
        except tf.errors.InvalidArgumentError as e:
            raise RequestError(e.message) from None
        except tf.errors.OpError as e:
            raise RequestError(e.message, status=500) from None
        return {name: tensor.numpy() for name, tensor in outputs.items()}


# Limits of the HTTP side (flags of the same names): the largest request body read, the
# seconds a connection may sit idle or mid-request, and the connections served at once (enough
# for the 100-client load test of docs/reliability.md; each is a mostly idle thread). 1 MiB
# holds the largest request the content limits accept (64 windows of 384 token ids, or contexts
# of MAX_WINDOWS windows), with room; it was 64 MiB, and a 20 MB context ran for minutes in 18 GB.
MAX_BODY_BYTES = 2**20
REQUEST_TIMEOUT_S = 30.0
MAX_CONNECTIONS = 256
LINGER_S = 2.0  # reading and dropping a refused body, at most (`_Handler._drop_input`)


def body_length(header, limit):
    """The byte count a POST's `Content-Length` header announces, checked before anything is
    read: `RequestError` 411 when it is missing, 400 when it is not a count, 413 over `limit`."""
    if header is None:
        raise RequestError("A POST needs a Content-Length header.", status=411)
    if not header.strip().isdigit():
        raise RequestError(f"Content-Length {header!r} is not a byte count.")
    length = int(header)
    if length > limit:
        raise RequestError(f"The request body ({length:,} bytes) is over this server's limit "
                           f"of {limit:,} bytes (--max_body_bytes): send long texts as passages "
                           "and large batches as several requests, or restart the server with a "
                           "larger --max_body_bytes.", status=413)
    return length


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "serving_standin"
    # Keep-alive, as TF Serving: every answer has a Content-Length. (HTTP/1.0 closed each
    # connection, and 100 clients reconnecting overflowed the listen queue: resets.)
    protocol_version = "HTTP/1.1"
    # One write per answer (headers and body buffered, flushed once) with Nagle off, so a
    # kept-alive connection does not wait for the client's delayed ACK between the two.
    wbufsize = 1 << 16
    disable_nagle_algorithm = True

    def setup(self):
        self.timeout = self.server.request_timeout  # socket timeout: slow clients are dropped
        super().setup()

    def do_GET(self):
        self._answer(lambda: self.server.model.get(self.path))

    def do_POST(self):
        try:
            length = body_length(self.headers.get("Content-Length"), self.server.max_body_bytes)
        except RequestError as e:
            self.close_connection = True  # the unread body must not be taken for a request
            self._send(e.status, json.dumps({"error": str(e)}))
            self._drop_input()
            return
        body = self.rfile.read(length)
        if len(body) < length:
            return  # the client went away mid-body: nobody to answer
        self._answer(lambda: self.server.model.post(self.path, body))

    def _drop_input(self):
        """After an answer that leaves the body unread: ends the answer (FIN), then reads and
        drops what the client still sends, 64 KiB at a time, for at most `LINGER_S` seconds. A
        client that sends its whole body before reading (http.client, urllib, requests) then
        reads the answer; closed with unread data, the socket would reset and lose it (Broken
        pipe, as the stand-in answered a 20 MB body before). Apache and nginx "linger" alike."""
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + LINGER_S
            while (left := deadline - time.monotonic()) > 0:
                self.connection.settimeout(left)
                if not self.connection.recv(1 << 16):
                    break  # the client read the answer and closed
        except OSError:
            pass  # reset, or timed out: either way the connection is done

    def _answer(self, route):
        try:
            status, text = route()
        except RequestError as e:
            status, text = e.status, json.dumps({"error": str(e)})
        except Exception as e:  # the server keeps serving whatever one request did
            status, text = 500, json.dumps({"error": f"{type(e).__name__}: {e}"})
        self._send(status, text)

    def _send(self, status, text):
        data = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        pass  # quiet: tests read stdout for the port line


class BoundedServer(http.server.ThreadingHTTPServer):
    """A thread per connection, at most `max_connections` at once: one more is answered 503 and
    closed at once instead of starting a thread. Each connection's socket times out after
    `request_timeout` seconds without progress."""

    daemon_threads = True
    request_queue_size = 128  # the listen backlog (socketserver's default is 5)

    def __init__(self, address, handler, model, max_connections=MAX_CONNECTIONS,
                 request_timeout=REQUEST_TIMEOUT_S, max_body_bytes=MAX_BODY_BYTES):
        super().__init__(address, handler)
        self.model = model
        self.request_timeout = request_timeout
        self.max_body_bytes = max_body_bytes
        self._slots = threading.BoundedSemaphore(max_connections)

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            data = json.dumps({"error": "Too many connections; retry later."}).encode()
            try:
                request.settimeout(1.0)
                request.sendall(b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: "
                                b"application/json\r\nContent-Length: " + str(len(data)).encode()
                                + b"\r\nConnection: close\r\n\r\n" + data)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model_base_path", required=True,
                        help="Folder of numeric version folders, e.g. /models/qa (holding 1/, 2/).")
    parser.add_argument("--model_name", required=True, help="NAME in /v1/models/NAME.")
    parser.add_argument("--port", type=int, default=8501, help="REST port; 0 picks a free one.")
    parser.add_argument("--debug_modules", action="store_true",
                        help="Also serve GET /v1/debug/modules (imported top-level modules).")
    parser.add_argument("--max_body_bytes", type=int, default=MAX_BODY_BYTES,
                        help="Largest request body read; a larger one is answered 413 before "
                        "any of it is read. Default: %(default)s (1 MiB).")
    parser.add_argument("--max_text_chars", type=int, default=MAX_TEXT_CHARS,
                        help="Most characters of any one string in a request (a context); a "
                        "longer one is answered 400. Default: %(default)s.")
    parser.add_argument("--max_windows", type=int, default=MAX_WINDOWS,
                        help=f"Most {WINDOW_TOKENS}-token windows one request may produce, "
                        "counted before tokenizing: one per instance, or, for a "
                        f"'{WINDOWED_INPUT}' string of N characters, 1 + ceil((N - {WINDOW_ROOM}) "
                        f"/ {WINDOW_STRIDE}) (an upper bound); more is answered 400. "
                        "Default: %(default)s.")
    parser.add_argument("--request_timeout", type=float, default=REQUEST_TIMEOUT_S,
                        help="Seconds a connection may stall before it is closed.")
    parser.add_argument("--max_connections", type=int, default=MAX_CONNECTIONS,
                        help="Connections served at once; one more is answered 503.")
    args = parser.parse_args(argv)
    for name in ("max_body_bytes", "max_text_chars", "max_windows", "request_timeout",
                 "max_connections"):
        if getattr(args, name) <= 0:
            parser.exit(2, f"serving_standin: --{name} must be above 0, got {getattr(args, name)}\n")
    load_text_ops()
    try:
        model = ServedModel(args.model_base_path, args.model_name, args.debug_modules,
                            max_text_chars=args.max_text_chars, max_windows=args.max_windows)
    except (FileNotFoundError, ValueError) as e:
        parser.exit(2, f"serving_standin: {e}\n")
    server = BoundedServer(("127.0.0.1", args.port), _Handler, model,
                           max_connections=args.max_connections,
                           request_timeout=args.request_timeout,
                           max_body_bytes=args.max_body_bytes)
    port = server.server_address[1]
    print(f"serving_standin: model {model.model_name} version {model.version} "
          f"({model.files_verified} files checked against SHA256SUMS) at "
          f"http://127.0.0.1:{port}/v1/models/{model.model_name}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
