"""keras_bert.export.tflite: TFLite conversion, the float and int8 variants, and their TFLite Metadata."""
