"""What the command-line tools share: flag groups (fine-tuning, precision, runtime), run logs,
text inputs, and `usage.run` (one-line errors instead of tracebacks)."""
