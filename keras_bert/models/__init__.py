"""keras_bert.models: the config, the encoder and the task models."""
