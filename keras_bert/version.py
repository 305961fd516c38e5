"""The keras_bert version, read by setup.py."""

__version__ = "0.1.0"
