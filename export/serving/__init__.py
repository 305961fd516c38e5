"""keras_bert.export.serving: TF Serving SavedModels, their raw-text signatures, warm-up, a REST stand-in."""
