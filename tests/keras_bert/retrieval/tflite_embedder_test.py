"""`TfliteEmbedder` on the shipped embedder: its vocabulary from the file, unit vectors,
truncation counted, and the refusals (missing, corrupted, or not an embedder)."""

import os
import shutil

import numpy as np
import pytest

from keras_bert.integrity import IntegrityError
from keras_bert.retrieval.tflite_embedder import TfliteEmbedder
from keras_bert.tokenization.vocab import load_vocabulary

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MODELS = os.path.join(ROOT, "apps", "models")
EMBEDDER = os.path.join(MODELS, "minilm_embedder_dynamic_int8.tflite")


def test_embeds_with_the_vocabulary_it_carries(tmp_path):
    shutil.copy(EMBEDDER, tmp_path / "e.tflite")  # no vocab.txt and no SHA256SUMS beside it
    embed = TfliteEmbedder(str(tmp_path / "e.tflite"), num_threads=1)
    assert embed.tokenizer.vocabulary == load_vocabulary(os.path.join(MODELS, "vocab.txt"))
    assert embed.sequence_length == 256
    texts = ["Where does the Rhine rise?", "The Rhine rises in the Swiss Alps.",
             "Beyoncé sang at the Super Bowl 50 halftime show.", " ".join(["word"] * 300)]
    vectors = embed(texts)
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embed.truncated == 1 and len(embed.seconds) == 4
    # The question is nearer its answer than an unrelated sentence.
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3
    assert embed([]).shape == (0, 0)


def test_refusals_name_the_problem(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        TfliteEmbedder(str(tmp_path / "missing.tflite"))
    for name in ("minilm_embedder_dynamic_int8.tflite", "SHA256SUMS"):
        shutil.copy(os.path.join(MODELS, name), tmp_path / name)
    model = tmp_path / "minilm_embedder_dynamic_int8.tflite"
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 1
    model.write_bytes(bytes(data))
    with pytest.raises(IntegrityError, match="is corrupted"):
        TfliteEmbedder(str(model))
    with pytest.raises(ValueError, match="a sentence embedder takes"):
        TfliteEmbedder(os.path.join(MODELS, "squad_minilm_dynamic_int8.tflite"))
    with pytest.raises(TypeError, match="one str"):
        TfliteEmbedder(EMBEDDER)("a single text")
