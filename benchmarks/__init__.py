"""Side-by-side benchmarks: keras_bert against keras-hub, HF transformers (PyTorch) and the
machine's own matmul rate, measured interleaved in one process. Entry point: `benchmarks.run`."""
