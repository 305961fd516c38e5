"""keras_bert.export.task: which task model is exported, how it is loaded, and its exported tensor names."""
