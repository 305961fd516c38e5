"""keras_bert.export.verification: Keras vs SavedModel vs TFLite on real task data: scores, latency, report."""
