"""The TF Serving stand-in checks a version's SHA256SUMS before loading it: one flipped byte in
a weight file or in the vocabulary stops it with a one-line error naming the file; the intact
copy serves. Without the manifest, TensorFlow's own per-tensor CRC catches the weight (as a
traceback), and nothing catches the vocabulary: the model would serve with a changed one."""

import os
import pathlib
import subprocess
import sys

import keras_bert
import pytest

from keras_bert.export.serving.saved_model import export_saved_model
from keras_bert import integrity

STANDIN = os.path.join(os.path.dirname(__file__), "..", "..", "..", "export", "serving",
                       "serving_standin.py")


def _start(base, timeout=240):
    """Runs the stand-in until it prints its URL or exits; returns (returncode or None, text)."""
    process = subprocess.Popen([sys.executable, STANDIN, f"--model_base_path={base}",
                                "--model_name=tiny_qa", "--port=0"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    first_line = process.stdout.readline()
    if first_line:
        process.terminate()
    _, stderr = process.communicate(timeout=timeout)
    return (None if first_line else process.returncode), first_line + stderr


@pytest.mark.large
def test_a_flipped_byte_in_weights_or_vocabulary_stops_the_standin(tmp_path):
    from tests.export.serving.saved_model_test import VOCAB, tiny_encoder

    model = keras_bert.BertClassifier(tiny_encoder(), num_classes=2)
    version = pathlib.Path(export_saved_model(model, tmp_path / "base", "tiny_qa", VOCAB,
                                              max_seq_length=16, labels=["neg", "pos"]))

    code, text = _start(version.parent)
    assert code is None and "files checked against SHA256SUMS" in text, text

    weights = version / "variables" / "variables.data-00000-of-00001"
    original = weights.read_bytes()
    data = bytearray(original)
    data[len(data) // 2] ^= 0x10  # inside a tensor, not a header
    weights.write_bytes(bytes(data))
    code, text = _start(version.parent)
    assert code == 2, text
    last = text.strip().splitlines()[-1]
    assert last.startswith("serving_standin: ") and "variables.data-00000-of-00001 is corrupted" in last
    # Without the manifest: TensorFlow's checkpoint CRC32C catches the weight, as a traceback.
    manifest = (version / integrity.MANIFEST).read_text()
    (version / integrity.MANIFEST).unlink()
    code, text = _start(version.parent)
    assert code == 1 and "DataLossError" in text and "Checksum does not match" in text, text

    # A changed vocabulary line (still valid UTF-8, still unique) has no checksum of its own.
    weights.write_bytes(original)
    vocab = version / "assets" / "vocab.txt"
    lines = vocab.read_text(encoding="utf-8").split("\n")
    index = next(i for i, line in enumerate(lines) if line.isalpha() and line.islower()
                 and line.upper() not in lines)
    lines[index] = lines[index].upper()
    vocab.write_text("\n".join(lines), encoding="utf-8")
    code, text = _start(version.parent)
    assert code is None and "(0 files checked" in text, text  # served, with another vocabulary
    (version / integrity.MANIFEST).write_text(manifest)
    code, text = _start(version.parent)
    assert code == 2 and "vocab.txt is corrupted" in text.strip().splitlines()[-1], text
