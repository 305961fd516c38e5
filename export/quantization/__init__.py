"""keras_bert.export.quantization: int8 fake-quant layers, outlier profiles, QAT models and training."""
