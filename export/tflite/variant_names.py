"""The TFLite variants' names, importable without TensorFlow (the export CLI's flags list them)."""

# Post-training conversions (export/tflite/conversion.py).
QUANTIZATIONS = ("float32", "float16", "dynamic_int8", "mixed_int8", "full_int8")
# ... and full int8 after quantization-aware fine-tuning (export/quantization/qat.py).
VARIANTS = QUANTIZATIONS + ("qat_int8",)
