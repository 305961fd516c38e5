"""export: keras_bert models to SavedModel and TFLite, with parity checks."""

from export.tflite import export_tflite
from export.tflite import run_tflite
