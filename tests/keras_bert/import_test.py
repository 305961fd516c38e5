"""`import keras_bert` on JAX or PyTorch loads no TensorFlow, tensorflow-text or keras-hub, even
where they are installed; their symbols load on first use."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = """
import sys
import keras_bert
loaded = sorted(m for m in ("tensorflow", "tensorflow_text", "keras_hub") if m in sys.modules)
print("loaded:", loaded)
try:
    keras_bert.BertPreprocessor  # a TensorFlow-only symbol: imported now, or a one-line error
    print("lazy:", "tensorflow" in sys.modules)
except ImportError as error:
    print("lazy: missing:", str(error).splitlines()[0])
"""


def test_import_on_jax_loads_no_tensorflow():
    done = subprocess.run([sys.executable, "-c", CHECK], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "KERAS_BACKEND": "jax"}, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "loaded: []", done.stdout
    # Where TensorFlow is installed, the symbol loads it on use; where not, a one-line error.
    assert lines[1] == "lazy: True" or lines[1].startswith(
        "lazy: missing: keras_bert.BertPreprocessor needs tensorflow"), lines[1]
