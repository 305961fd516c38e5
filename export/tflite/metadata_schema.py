"""The parts of the TFLite Metadata schema (tflite-support `metadata_schema.fbs`) keras_bert uses.

The metadata is its own FlatBuffer (file identifier `M001`), stored in a buffer of the model
that the model's `metadata` list names `TFLITE_METADATA`; the files it names (vocab, labels)
are appended to the `.tflite` as an uncompressed zip. Each table below lists its fields in
schema order: a field's index is its vtable slot. A union field takes two slots, its `_type`
(ubyte) first.

Reference:
    tensorflow/tflite-support, `tensorflow_lite_support/metadata/metadata_schema.fbs` (schema
    1.5.0) and `metadata/cc/metadata_version.cc` (which field needs which parser version).
"""

FILE_IDENTIFIER = b"M001"
METADATA_NAME = "TFLITE_METADATA"  # the model's `metadata` entry the Task Library looks for
TFLITE_FILE_IDENTIFIER = b"TFL3"

MODEL_METADATA = (
    "name", "description", "version", "subgraph_metadata", "author", "license",
    "associated_files", "min_parser_version",
)  # fmt: skip
SUBGRAPH_METADATA = (
    "name", "description", "input_tensor_metadata", "output_tensor_metadata",
    "associated_files", "input_process_units", "output_process_units",
)  # fmt: skip
TENSOR_METADATA = (
    "name", "description", "dimension_names", "content", "process_units", "stats",
    "associated_files",
)  # fmt: skip
CONTENT = ("content_properties_type", "content_properties", "range")
PROCESS_UNIT = ("options_type", "options")
BERT_TOKENIZER_OPTIONS = ("vocab_file",)
ASSOCIATED_FILE = ("name", "description", "type", "locale", "version")
FEATURE_PROPERTIES = ()

# enum AssociatedFileType : byte.
ASSOCIATED_FILE_TYPES = (
    "UNKNOWN", "DESCRIPTIONS", "TENSOR_AXIS_LABELS", "TENSOR_VALUE_LABELS",
    "TENSOR_AXIS_SCORE_CALIBRATION", "VOCABULARY", "SCANN_INDEX_FILE",
)  # fmt: skip
# union ContentProperties / ProcessUnitOptions: 0 is NONE.
CONTENT_PROPERTIES = (
    "NONE", "FeatureProperties", "ImageProperties", "BoundingBoxProperties", "AudioProperties"
)
PROCESS_UNIT_OPTIONS = (
    "NONE", "NormalizationOptions", "ScoreCalibrationOptions", "ScoreThresholdingOptions",
    "BertTokenizerOptions", "SentencePieceTokenizerOptions", "RegexTokenizerOptions",
)  # fmt: skip

# metadata_version.cc: the base is 1.0.0, a VOCABULARY file needs 1.0.1, subgraph input
# process units and BertTokenizerOptions need 1.1.0 (the highest of what keras_bert writes).
PROCESS_UNITS_PARSER_VERSION = "1.1.0"


def slot(table, field):
    """The vtable slot (field index) of `field` in `table` (one of the tuples above)."""
    return table.index(field)
