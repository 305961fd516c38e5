"""export: fine-tuned keras_bert models to TF Serving SavedModels and TFLite, verified."""

from export.metadata import add_metadata
from export.metadata_reader import read_metadata
from export.saved_model import export_saved_model
from export.squad_signature import squad_text_function
from export.tflite import export_tflite
from export.tflite import run_tflite
from export.tflite_variants import export_tflite_variants
from export.verify import compare_variants
