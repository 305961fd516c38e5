"""TFLite Metadata for an exported keras_bert `.tflite`: what the TFLite Task Library reads.

The metadata FlatBuffer is written here with the `flatbuffers` Builder (schema in
`export/tflite/metadata_schema.py`), stored in the model as `TFLITE_METADATA`, and the vocab (and
labels) are appended to the model as an uncompressed zip, as tflite-support's
`MetadataPopulator` does. The Task Library's `BertQuestionAnswerer` and `BertNLClassifier` then
need nothing but the file: they find the tokenizer in the subgraph's first input process unit
and bind tensors by their metadata names.
"""

import io
import os
import zipfile

import flatbuffers
import numpy as np
from tensorflow.lite.python import schema_py_generated as tflite_schema

from keras_bert.export.tflite import metadata_schema as schema

INPUT_NAMES = ("ids", "mask", "segment_ids")
QA_OUTPUT_NAMES = ("end_logits", "start_logits")
# A sentence embedder's one output (`keras_bert.BertSentenceEmbedder`): float32 `[1, hidden]`,
# the Task Library TextEmbedder's kind of model.
EMBEDDING_OUTPUT_NAME = "embedding"
# The Task Library's BertQuestionAnswerer hard-codes these (kMaxSeqLen, batch 1) and aborts on
# any other tensor size.
QA_SEQUENCE_LENGTH = 384
# BertNLClassifier finds its scores under this metadata name; our classifiers output logits,
# which rank the classes exactly as their softmax does.
CLASSIFIER_SCORES_NAME = "probability"
VOCAB_FILE_NAME = "vocab.txt"
LABELS_FILE_NAME = "labels.txt"

_SPECIAL_TOKENS = ("[CLS]", "[SEP]", "[UNK]")
_BUFFER_ALIGNMENT = 16  # TFLite's schema: `data:[ubyte] (force_align: 16)`
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so the same inputs give the same bytes
_DESCRIPTIONS = {
    "ids": "WordPiece token ids: [CLS] first segment [SEP] (second segment [SEP]), 0-padded.",
    "mask": "1 for real tokens, 0 for padding.",
    "segment_ids": "0 for the first segment (the question), 1 for the second (the context).",
    "start_logits": "Per-token score of the answer starting at that token.",
    "end_logits": "Per-token score of the answer ending at that token.",
    "logits": "Per-class scores (logits, before softmax).",
    "embedding": "The text's embedding: mean of the last layer over real tokens, L2-normalized "
                 "(cosine = dot product).",
}


def add_metadata(
    tflite_bytes,
    *,
    name,
    description,
    version,
    author,
    license,
    vocab_file,
    labels=None,
    input_descriptions=None,
    output_descriptions=None,
):
    """Returns `tflite_bytes` with TFLite Metadata and its files, ready for the Task Library.

    The model must follow the export contract: one signature with int32 inputs `ids`, `mask`,
    `segment_ids` of shape `[1, seq]`, and outputs either `start_logits` / `end_logits`
    (question answering, `[1, 384]`: the Task Library's fixed size) or `logits` (`[1, C]`
    classifier, `[1, seq, C]` token classifier). Tensor metadata follow the subgraph's own
    input and output order. Their names are the signature names, except that a `[1, C]`
    classifier's `logits` are named `probability`, the name `BertNLClassifier` looks up.

    The tokenizer is a `BertTokenizerOptions` input process unit naming `vocab.txt`; `labels`
    become `labels.txt`, a `TENSOR_AXIS_LABELS` file on the output. The schema has no
    lower-casing flag: the Task Library always lower-cases (ASCII only) and does not strip
    accents, so it suits uncased vocabularies. Existing `TFLITE_METADATA` and any zip already
    appended are replaced, not duplicated.

    Args:
        tflite_bytes: bytes of a `.tflite` model.
        name, description, version, author, license: str, the model's metadata.
        vocab_file: str or path, the `vocab.txt` the model was trained with.
        labels: optional list of str, one per class (the output's last axis).
        input_descriptions, output_descriptions: optional `{signature name: str}` overriding
            the default tensor descriptions.

    Returns:
        bytes: the model with metadata, then a zip of `vocab.txt` (and `labels.txt`).

    Raises:
        ValueError: not a TFLite model, a model off the contract, a bad vocab or labels.
        FileNotFoundError: `vocab_file` does not exist.
    """
    model = read_model(tflite_bytes)
    inputs, outputs = _signature_tensors(model)
    _check_contract(inputs, outputs, labels)
    files = {VOCAB_FILE_NAME: _read_vocab(vocab_file)}
    if labels is not None:
        files[LABELS_FILE_NAME] = _labels_file(labels, outputs)
    descriptions = dict(_DESCRIPTIONS)
    for given, tensors in ((input_descriptions, inputs), (output_descriptions, outputs)):
        unknown = sorted(set(given or {}) - {n for n, _ in tensors})
        if unknown:
            raise ValueError(
                f"Descriptions for {unknown}, which the model does not have; its tensors are "
                f"{sorted(n for n, _ in tensors)}."
            )
        descriptions.update(given or {})
    metadata = _metadata_flatbuffer(
        dict(name=name, description=description, version=version, author=author,
             license=license),  # fmt: skip
        [(n, descriptions.get(n, "")) for n, _ in inputs],
        [(_metadata_name(n, t), descriptions.get(n, "")) for n, t in outputs],
        has_labels=labels is not None,
    )
    _set_metadata_buffer(model, metadata)
    return _append_files(pack_model(model), files)


def read_model(tflite_bytes):
    """A `.tflite` file's bytes as the schema's object API `ModelT`; clear errors otherwise."""
    if not isinstance(tflite_bytes, (bytes, bytearray)):
        raise TypeError(
            f"Expected the model's bytes, got {type(tflite_bytes).__name__}: pass "
            "open(path, 'rb').read()."
        )
    if len(tflite_bytes) < 8 or bytes(tflite_bytes[4:8]) != schema.TFLITE_FILE_IDENTIFIER:
        raise ValueError(
            "Not a TFLite model: a .tflite flatbuffer has the identifier 'TFL3' at byte 4. "
            "Pass the bytes of a .tflite file."
        )
    try:
        model = tflite_schema.ModelT.InitFromPackedBuf(bytearray(tflite_bytes), 0)
    except Exception as error:  # a truncated or corrupt flatbuffer fails anywhere inside
        raise ValueError(
            f"Cannot parse the TFLite model ({error}); is the file complete?"
        ) from None
    if any(buffer.offset for buffer in model.buffers or []):
        raise ValueError(
            "This model keeps its weights after the flatbuffer (the >2 GB layout); metadata "
            "can only be added to a self-contained .tflite."
        )
    return model


def _signature_tensors(model):
    """`([(name, TensorT)] inputs, [...] outputs)` in the subgraph's order, named by signature."""
    if len(model.subgraphs or []) != 1 or len(model.signatureDefs or []) != 1:
        raise ValueError(
            f"The model has {len(model.subgraphs or [])} subgraph(s) and "
            f"{len(model.signatureDefs or [])} signature(s); TFLite Metadata describes exactly "
            "one of each. Export a single serving signature."
        )
    signature, subgraph = model.signatureDefs[0], model.subgraphs[0]

    def named(tensor_maps, indices, kind):
        names = {int(m.tensorIndex): m.name.decode() for m in tensor_maps}
        if sorted(names) != sorted(int(i) for i in indices):
            raise ValueError(f"The signature's {kind}s are not the subgraph's {kind}s.")
        return [(names[int(i)], subgraph.tensors[int(i)]) for i in indices]

    return (
        named(signature.inputs, subgraph.inputs, "input"),
        named(signature.outputs, subgraph.outputs, "output"),
    )


def _shape(tensor):
    return [int(d) for d in tensor.shape]


def _check_contract(inputs, outputs, labels):
    input_names = sorted(n for n, _ in inputs)
    output_names = sorted(n for n, _ in outputs)
    if input_names != list(INPUT_NAMES):
        raise ValueError(
            f"The model's inputs are {input_names}; the Task Library binds {list(INPUT_NAMES)} "
            "by name. Export with the ids / mask / segment_ids input names."
        )
    for input_name, tensor in inputs:
        shape = _shape(tensor)
        if tensor.type != tflite_schema.TensorType.INT32 or len(shape) != 2 or shape[0] != 1:
            raise ValueError(
                f"Input {input_name!r} is {shape}; expected int32 [1, seq] (the Task Library "
                "runs one example at a time)."
            )
    seq = _shape(inputs[0][1])[1]
    if output_names == list(QA_OUTPUT_NAMES):
        if labels is not None:
            raise ValueError("A question-answering model has no classes: drop `labels`.")
        for tensor_name, tensor in inputs + outputs:
            if _shape(tensor) != [1, QA_SEQUENCE_LENGTH]:
                raise ValueError(
                    f"{tensor_name!r} is {_shape(tensor)}; the Task Library's "
                    f"BertQuestionAnswerer needs [1, {QA_SEQUENCE_LENGTH}] (its fixed "
                    f"sequence length). Export with sequence_length={QA_SEQUENCE_LENGTH}."
                )
    elif output_names == [EMBEDDING_OUTPUT_NAME]:
        if labels is not None:
            raise ValueError("A sentence embedder has no classes: drop `labels`.")
        shape = _shape(outputs[0][1])
        if outputs[0][1].type != tflite_schema.TensorType.FLOAT32 or len(shape) != 2:
            raise ValueError(f"'embedding' is {shape}; expected float32 [1, hidden].")
    elif output_names != ["logits"]:
        raise ValueError(
            f"The model's outputs are {output_names}; expected {list(QA_OUTPUT_NAMES)} "
            "(question answering), ['logits'] (classifier, token classifier) or "
            "['embedding'] (sentence embedder)."
        )
    elif len(_shape(outputs[0][1])) == 3 and _shape(outputs[0][1])[1] != seq:
        raise ValueError(f"Token logits {_shape(outputs[0][1])} do not match inputs [1, {seq}].")


def _metadata_name(signature_name, tensor):
    if signature_name == "logits" and len(_shape(tensor)) == 2:
        return CLASSIFIER_SCORES_NAME
    return signature_name


def _read_vocab(vocab_file):
    path = os.fspath(vocab_file)
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"vocab_file {path!r} does not exist: pass the vocab.txt the model was trained "
            "with (a fine-tuning run keeps it next to its checkpoint)."
        )
    with open(path, "rb") as f:
        content = f.read()
    try:
        lines = content.decode("utf-8").split("\n")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path} is not UTF-8 ({error}).") from None
    if lines and lines[-1] == "":
        lines.pop()
    # The Task Library skips empty lines when it reads a vocab, which would shift every later id.
    bad = [i + 1 for i, line in enumerate(lines) if not line.strip() or line.endswith("\r")]
    if bad:
        raise ValueError(
            f"{path}: line(s) {bad[:5]} are empty or end in '\\r'; a vocab has one token per "
            "'\\n'-terminated line (the Task Library would misnumber the tokens after them)."
        )
    missing = [token for token in _SPECIAL_TOKENS if token not in set(lines)]
    if missing:
        raise ValueError(f"{path} lacks {missing}: not a BERT WordPiece vocab.")
    return content


def _labels_file(labels, outputs):
    labels = list(labels)
    classes = _shape(outputs[0][1])[-1]
    if len(labels) != classes:
        raise ValueError(
            f"{len(labels)} labels for an output of {classes} classes "
            f"(shape {_shape(outputs[0][1])}): pass one label per class, in class-id order."
        )
    for label in labels:
        if not isinstance(label, str) or not label.strip() or "\n" in label or "\r" in label:
            raise ValueError(f"Label {label!r}: labels are non-empty one-line strings.")
    return ("\n".join(labels) + "\n").encode("utf-8")


def _metadata_flatbuffer(model_info, inputs, outputs, has_labels):
    """The `ModelMetadata` FlatBuffer (bytes); `inputs`/`outputs` are `[(name, description)]`."""
    builder = flatbuffers.Builder(1024)

    def table(fields, offsets=(), int8s=(), uint8s=()):
        # Children (strings, vectors, tables) must exist before the table that points at them.
        builder.StartObject(len(fields))
        for field, value in dict(offsets).items():
            if value is not None:
                builder.PrependUOffsetTRelativeSlot(schema.slot(fields, field), value, 0)
        for field, value in dict(int8s).items():
            builder.PrependInt8Slot(schema.slot(fields, field), value, 0)
        for field, value in dict(uint8s).items():
            builder.PrependUint8Slot(schema.slot(fields, field), value, 0)
        return builder.EndObject()

    def vector(offsets):
        builder.StartVector(4, len(offsets), 4)
        for offset in reversed(offsets):
            builder.PrependUOffsetTRelative(offset)
        return builder.EndVector()

    def associated_file(file_name, file_description, file_type):
        strings = dict(name=builder.CreateString(file_name),
                       description=builder.CreateString(file_description))  # fmt: skip
        kind = schema.ASSOCIATED_FILE_TYPES.index(file_type)
        return table(schema.ASSOCIATED_FILE, strings, int8s={"type": kind})

    def tensor(tensor_name, tensor_description, files=()):
        fields = dict(name=builder.CreateString(tensor_name),
                      description=builder.CreateString(tensor_description))  # fmt: skip
        properties = table(schema.FEATURE_PROPERTIES)
        feature = schema.CONTENT_PROPERTIES.index("FeatureProperties")
        fields["content"] = table(
            schema.CONTENT, {"content_properties": properties},
            uint8s={"content_properties_type": feature},
        )  # fmt: skip
        fields["associated_files"] = vector(list(files)) if files else None
        return table(schema.TENSOR_METADATA, fields)

    vocab = associated_file(VOCAB_FILE_NAME, "WordPiece vocabulary, one token per line.",
                            "VOCABULARY")  # fmt: skip
    tokenizer = table(schema.BERT_TOKENIZER_OPTIONS, {"vocab_file": vector([vocab])})
    options_type = schema.PROCESS_UNIT_OPTIONS.index("BertTokenizerOptions")
    process_unit = table(schema.PROCESS_UNIT, {"options": tokenizer},
                         uint8s={"options_type": options_type})  # fmt: skip
    input_tensors = [tensor(n, d) for n, d in inputs]
    output_tensors = []
    for n, d in outputs:
        files = ()
        if has_labels:
            files = [associated_file(LABELS_FILE_NAME, "Class names, one per line, in class-id "
                                     "order.", "TENSOR_AXIS_LABELS")]  # fmt: skip
        output_tensors.append(tensor(n, d, files))
    subgraph = table(schema.SUBGRAPH_METADATA, {
        "name": builder.CreateString(model_info["name"]),
        "input_tensor_metadata": vector(input_tensors),
        "output_tensor_metadata": vector(output_tensors),
        "input_process_units": vector([process_unit]),
    })  # fmt: skip
    fields = {key: builder.CreateString(str(value)) for key, value in model_info.items()}
    fields["subgraph_metadata"] = vector([subgraph])
    # The BertTokenizerOptions input process unit is what needs the newest parser here.
    fields["min_parser_version"] = builder.CreateString(schema.PROCESS_UNITS_PARSER_VERSION)
    builder.Finish(table(schema.MODEL_METADATA, fields), file_identifier=schema.FILE_IDENTIFIER)
    return bytes(builder.Output())


def _set_metadata_buffer(model, metadata):
    data = np.frombuffer(metadata, np.uint8)
    entries = [m for m in model.metadata or [] if _text(m.name) == schema.METADATA_NAME]
    if entries:  # replace in place; drop any duplicate entries
        model.buffers[entries[0].buffer].data = data
        model.metadata = [m for m in model.metadata if m not in entries[1:]]
        return
    buffer = tflite_schema.BufferT()
    buffer.data = data
    model.buffers.append(buffer)
    entry = tflite_schema.MetadataT()
    entry.name, entry.buffer = schema.METADATA_NAME, len(model.buffers) - 1
    model.metadata = [*(model.metadata or []), entry]


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


class _AlignedBuffer(tflite_schema.BufferT):
    """A `BufferT` whose data starts 16-byte aligned, as the TFLite schema asks
    (`force_align: 16`), for runtimes that map weights in place. The Python FlatBuffers
    builder ignores `force_align`; so, measured, does TF 2.21's converter for most buffers."""

    def Pack(self, builder):
        data = None
        if self.data is not None:
            payload = np.asarray(self.data, np.uint8).tobytes()
            builder.StartVector(1, len(payload), _BUFFER_ALIGNMENT)
            builder.head -= len(payload)  # what Builder.CreateNumpyVector does, aligned
            builder.Bytes[builder.head : builder.head + len(payload)] = payload
            data = builder.EndVector()
        tflite_schema.BufferStart(builder)
        if data is not None:
            tflite_schema.BufferAddData(builder, data)
        return tflite_schema.BufferEnd(builder)


def pack_model(model):
    """A `ModelT` back to `.tflite` bytes, every buffer 16-byte aligned as the schema asks."""
    buffers = []
    for buffer in model.buffers:
        aligned = _AlignedBuffer()
        aligned.data = buffer.data
        buffers.append(aligned)
    model.buffers = buffers
    size = sum(len(b.data) for b in buffers if b.data is not None)
    builder = flatbuffers.Builder(size + (1 << 20))
    builder.Finish(model.Pack(builder), file_identifier=schema.TFLITE_FILE_IDENTIFIER)
    return bytes(builder.Output())


def _append_files(model_bytes, files):
    """`model_bytes` + an uncompressed zip of `files` (the Task Library maps them in place)."""
    out = io.BytesIO()
    out.write(model_bytes)
    # Mode "w" on a stream positioned after the model writes a zip whose offsets count from
    # the start of the file, as MetadataPopulator's appended zip does.
    with zipfile.ZipFile(out, "w") as archive:
        for file_name, content in files.items():
            info = zipfile.ZipInfo(file_name, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_STORED
            archive.writestr(info, content)
    return out.getvalue()
