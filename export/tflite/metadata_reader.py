"""Read back a `.tflite`'s TFLite Metadata and associated files (`export/tflite/metadata.py`)."""

import io
import zipfile

from flatbuffers import encode
from flatbuffers import number_types
from flatbuffers import packer
from flatbuffers import table as fb_table
from tensorflow.lite.python import schema_py_generated as tflite_schema

from keras_bert.export.tflite import metadata_schema as schema


def read_metadata(tflite_bytes):
    """Parses the `TFLITE_METADATA` of a `.tflite` and the files zipped after it.

    Args:
        tflite_bytes: bytes of a `.tflite` model.

    Returns:
        `None` when the model has no metadata, else a dict: `name`, `description`, `version`,
        `author`, `license`, `min_parser_version` (str or None); `inputs` and `outputs`, lists
        in the subgraph's tensor order of `{"name", "description", "associated_files"}`;
        `input_process_units`, a list of `{"options_type", "vocab_file"}`; and `files`,
        `{file name: bytes}` of the appended zip. An associated file is
        `{"name", "description", "type"}` with `type` the schema's enum name (`"VOCABULARY"`).

    Raises:
        ValueError: not a TFLite model, or metadata without the `M001` identifier.
    """
    data = bytes(tflite_bytes)
    if len(data) < 8 or data[4:8] != schema.TFLITE_FILE_IDENTIFIER:
        raise ValueError("Not a TFLite model: no 'TFL3' identifier at byte 4.")
    model = tflite_schema.Model.GetRootAs(data, 0)
    metadata = None
    for i in range(model.MetadataLength()):
        entry = model.Metadata(i)
        if entry.Name().decode() == schema.METADATA_NAME:
            metadata = model.Buffers(entry.Buffer()).DataAsNumpy().tobytes()
    if metadata is None:
        return None
    if metadata[4:8] != schema.FILE_IDENTIFIER:
        raise ValueError(
            f"{schema.METADATA_NAME} has identifier {metadata[4:8]!r}, not "
            f"{schema.FILE_IDENTIFIER!r}: not TFLite Metadata this reader knows."
        )
    root = fb_table.Table(metadata, encode.Get(packer.uoffset, metadata, 0))
    result = {
        key: _string(root, schema.MODEL_METADATA, key)
        for key in ("name", "description", "version", "author", "license", "min_parser_version")
    }
    subgraphs = _tables(root, schema.MODEL_METADATA, "subgraph_metadata")
    subgraph = subgraphs[0] if subgraphs else None
    result["inputs"] = _tensors(subgraph, "input_tensor_metadata")
    result["outputs"] = _tensors(subgraph, "output_tensor_metadata")
    result["input_process_units"] = [
        _process_unit(unit)
        for unit in (_tables(subgraph, schema.SUBGRAPH_METADATA, "input_process_units")
                     if subgraph else [])
    ]  # fmt: skip
    result["files"] = _zipped_files(data)
    return result


def _field(table, fields, name):
    return table.Offset(4 + 2 * schema.slot(fields, name))  # vtable entry: 4-byte header


def _string(table, fields, name):
    offset = _field(table, fields, name)
    return table.String(offset + table.Pos).decode("utf-8") if offset else None


def _int(table, fields, name, flags):
    offset = _field(table, fields, name)
    return table.Get(flags, offset + table.Pos) if offset else 0


def _sub_table(table, fields, name):
    offset = _field(table, fields, name)
    return fb_table.Table(table.Bytes, table.Indirect(offset + table.Pos)) if offset else None


def _tables(table, fields, name):
    offset = _field(table, fields, name)
    if not offset:
        return []
    start = table.Vector(offset)
    return [
        fb_table.Table(table.Bytes, table.Indirect(start + 4 * i))
        for i in range(table.VectorLen(offset))
    ]


def _associated_files(table, fields, name):
    return [
        {
            "name": _string(f, schema.ASSOCIATED_FILE, "name"),
            "description": _string(f, schema.ASSOCIATED_FILE, "description"),
            "type": schema.ASSOCIATED_FILE_TYPES[
                _int(f, schema.ASSOCIATED_FILE, "type", number_types.Int8Flags)
            ],
        }
        for f in _tables(table, fields, name)
    ]


def _tensors(subgraph, name):
    if subgraph is None:
        return []
    return [
        {
            "name": _string(t, schema.TENSOR_METADATA, "name"),
            "description": _string(t, schema.TENSOR_METADATA, "description"),
            "associated_files": _associated_files(t, schema.TENSOR_METADATA, "associated_files"),
        }
        for t in _tables(subgraph, schema.SUBGRAPH_METADATA, name)
    ]


def _process_unit(unit):
    kind = _int(unit, schema.PROCESS_UNIT, "options_type", number_types.Uint8Flags)
    options_type = schema.PROCESS_UNIT_OPTIONS[kind]
    vocab_file = []
    if options_type == "BertTokenizerOptions":
        options = _sub_table(unit, schema.PROCESS_UNIT, "options")
        vocab_file = _associated_files(options, schema.BERT_TOKENIZER_OPTIONS, "vocab_file")
    return {"options_type": options_type, "vocab_file": vocab_file}


def _zipped_files(data):
    stream = io.BytesIO(data)
    if not zipfile.is_zipfile(stream):
        return {}
    with zipfile.ZipFile(stream) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}
