"""export: fine-tuned keras_bert models to TF Serving SavedModels and TFLite, verified."""

from export.serving.saved_model import export_saved_model
from export.serving.squad_signature import squad_text_function
from export.tflite.conversion import export_tflite
from export.tflite.conversion import run_tflite
from export.tflite.metadata import add_metadata
from export.tflite.metadata_reader import read_metadata
from export.tflite.tflite_variants import export_tflite_variants
from export.verification.verify import compare_variants
