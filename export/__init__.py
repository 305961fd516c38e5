"""keras_bert.export: fine-tuned keras_bert models to TF Serving SavedModels and TFLite, verified.

Installed as `keras_bert.export` (the repository keeps it in the top-level export/ folder).
Its names load on first use, so `python -m keras_bert.export.cli --help` imports no TensorFlow.
"""

from keras_bert.lazy_package import lazy_exports

lazy_exports(
    globals(),
    symbols={},
    submodules=(),
    # All of it needs TensorFlow: a one-line install hint on use where it is missing.
    tensorflow_symbols={
        "export_saved_model": "keras_bert.export.serving.saved_model",
        "squad_text_function": "keras_bert.export.serving.squad_signature",
        "export_tflite": "keras_bert.export.tflite.conversion",
        "run_tflite": "keras_bert.export.tflite.conversion",
        "add_metadata": "keras_bert.export.tflite.metadata",
        "read_metadata": "keras_bert.export.tflite.metadata_reader",
        "export_tflite_variants": "keras_bert.export.tflite.tflite_variants",
        "compare_variants": "keras_bert.export.verification.verify",
    },
)
