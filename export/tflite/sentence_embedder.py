"""A `BertSentenceEmbedder` -> `.tflite`: pooling and normalization in the graph, vocab in its metadata."""

import os

import keras_bert

from keras_bert.export.tflite.conversion import convert_model, write_atomically
from keras_bert.export.tflite.metadata import add_metadata

# The sequence length sentence-transformers uses for all-MiniLM-L6-v2 (its
# sentence_bert_config.json, max_seq_length): longer texts are truncated to it.
EMBEDDER_SEQUENCE_LENGTH = 256
# The post-training conversions that need no calibration data. Dynamic-range int8 (int8
# weights, float activations) is the shipped reader's kind and the fastest on CPUs.
EMBEDDER_QUANTIZATIONS = ("float32", "float16", "dynamic_int8")


def export_sentence_embedder(
    embedder, path, vocab_file, sequence_length=EMBEDDER_SEQUENCE_LENGTH,
    quantization="dynamic_int8", name="sentence_embedder",
    description="BERT sentence embedder: mean of the last layer over real tokens, L2-normalized.",
):
    """Writes `embedder` as a `.tflite` (builtin ops only) with TFLite Metadata; returns `path`.

    The file takes the reader's inputs, int32 `ids`, `mask`, `segment_ids` of shape
    `[1, sequence_length]` (`[CLS] text [SEP]`, zero-padded; `segment_ids` all 0), and gives
    float32 `embedding` `[1, hidden]`, a unit vector: mean pooling over the positions where
    `mask` is 1, then L2 normalization, both inside the graph. The vocabulary rides in the
    metadata (a `BertTokenizerOptions` process unit), as in the QA files, and the file's
    SHA-256 goes to its folder's `SHA256SUMS` (`write_atomically`).

    Args:
        embedder: a `keras_bert.BertSentenceEmbedder`.
        path: where to write the `.tflite`.
        vocab_file: the encoder's `vocab.txt`.
        sequence_length: int, the fixed input length. Defaults to 256 (sentence-transformers'
            `max_seq_length` for all-MiniLM-L6-v2).
        quantization: one of `EMBEDDER_QUANTIZATIONS`. Defaults to `dynamic_int8`.
        name, description: the metadata's model name and description.

    Returns:
        str, `path`.
    """
    if quantization not in EMBEDDER_QUANTIZATIONS:
        raise ValueError(
            f"quantization={quantization!r}: a sentence embedder is exported as one of "
            f"{EMBEDDER_QUANTIZATIONS} (no calibration set)."
        )
    if not isinstance(embedder, keras_bert.BertSentenceEmbedder):
        raise TypeError(
            f"Expected a keras_bert.BertSentenceEmbedder, got {type(embedder).__name__}: wrap "
            "the encoder, keras_bert.BertSentenceEmbedder(encoder)."
        )
    plain = convert_model(embedder, sequence_length, quantization)
    with_metadata = add_metadata(
        plain, name=f"{name} ({quantization})", description=description,
        version=keras_bert.__version__, author="keras_bert", license="Apache-2.0",
        vocab_file=vocab_file,
    )
    write_atomically(path, with_metadata)
    return os.fspath(path)
