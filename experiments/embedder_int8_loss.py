r"""Where the sentence embedder's int8 file loses its cosine to Hugging Face's recipe, and what would win it back.

Makes: apps/models/MODEL_CARD.md, "The sentence embedder", the "Why not 0.999" row, and
docs/retrieval.md, "The embedder file" (`docs/runs/retrieval/embedder_int8_loss.json`).
Rerun (~4 min on 2 cores):

    .venv/bin/python -m experiments.embedder_int8_loss \
        --output_json=docs/runs/retrieval/embedder_int8_loss.json

all-MiniLM-L6-v2 as a `BertSentenceEmbedder` at 256 tokens, on the 100 SQuAD dev texts of
`tools/export_embedder.py` (50 questions, 50 paragraphs), each variant's vectors against
sentence-transformers' recipe run with transformers + torch:

- the TFLite converter's `float32`, `float16` and `dynamic_int8` files (the shipped kind);
- the float Keras model with its fully-connected kernels rounded to int8 (per output channel,
  symmetric, as the converter does), all of them and one kind at a time (query, key, value,
  attention output, intermediate, output), and the word-embedding table rounded per tensor (the
  converter's) and per row: int8 weights with float arithmetic, which separates the weights'
  share of the loss from the run-time int8 activations';
- with ai-edge-quantizer installed (the `quantizer` extra): its dynamic int8 on every
  fully-connected layer, and on all but the value and FFN-output ones (the two kinds that lose
  most), applied to the float32 file (it leaves the embedding table float).
"""

import argparse
import datetime
import json
import os
import platform
import sys
import tempfile

import numpy as np

from tools.export_embedder import DEFAULT_SQUAD, SEQUENCE_LENGTH, check_texts, hf_embeddings

KERNEL_KINDS = ("query", "key", "value", "attention_output", "intermediate", "/output/")


def _cosines(vectors, oracle, num_questions):
    c = np.sum(vectors * oracle, axis=1)
    return {"min": float(c.min()), "mean": float(c.mean()),
            "questions_min": float(c[:num_questions].min()),
            "paragraphs_min": float(c[num_questions:].min())}


def _tflite_vectors(path, texts, vocab_file):
    from keras_bert.retrieval import TfliteEmbedder

    return TfliteEmbedder(path, vocab_file=vocab_file, num_threads=2)(texts)


def _int8_channels(kernel):
    """Symmetric int8 per output channel (the last axis), back in float."""
    scale = np.maximum(np.abs(kernel).max(axis=0, keepdims=True), 1e-12) / 127
    return np.round(kernel / scale) * scale


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model_dir", default=None)
    parser.add_argument("--squad", default=DEFAULT_SQUAD)
    parser.add_argument("--output_json", default=None)
    args = parser.parse_args(argv)

    import keras_bert
    from keras_bert.checkpoints.hf_checkpoint import encoder_from_hf_checkpoint
    from keras_bert.export.tflite.conversion import convert_model
    from keras_bert.tokenization.packing import encode_texts
    from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
    from tools.export_embedder import default_model_dir

    model_dir = args.model_dir or default_model_dir()
    vocab_file = os.path.join(model_dir, "vocab.txt")
    questions, paragraphs = check_texts(args.squad)
    texts, n = questions + paragraphs, len(questions)
    oracle = hf_embeddings(model_dir, texts)
    encoder = encoder_from_hf_checkpoint(model_dir)
    embedder = keras_bert.BertSentenceEmbedder(encoder)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for quantization in ("float32", "float16", "dynamic_int8"):
            path = os.path.join(tmp, f"{quantization}.tflite")
            with open(path, "wb") as f:
                f.write(convert_model(embedder, SEQUENCE_LENGTH, quantization))
            rows[f"tflite {quantization}"] = {
                "bytes": os.path.getsize(path),
                **_cosines(_tflite_vectors(path, texts, vocab_file), oracle, n)}
            print(f"tflite {quantization}: {rows[f'tflite {quantization}']}", flush=True)
        try:
            from ai_edge_quantizer import quantizer
            from ai_edge_quantizer import recipe
        except ImportError:
            quantizer = None
        if quantizer is not None:
            recipes = {
                "ai-edge-quantizer dynamic int8, every FC": ".*",
                "ai-edge-quantizer dynamic int8, all FC but value and FFN output":
                    "^(?!.*(/output_1/|value_1)).*$",
            }
            for name, regex in recipes.items():
                qt = quantizer.Quantizer(os.path.join(tmp, "float32.tflite"))
                qt.load_quantization_recipe(recipe._dynamic_wix_afp32(8, regex=regex))
                path = os.path.join(tmp, "aeq.tflite")
                qt.quantize().export_model(path, overwrite=True)
                rows[name] = {"bytes": os.path.getsize(path),
                              **_cosines(_tflite_vectors(path, texts, vocab_file), oracle, n)}
                print(f"{name}: {rows[name]}", flush=True)

    inputs = encode_texts(ReferenceTokenizer(vocab_file), texts, sequence_length=SEQUENCE_LENGTH)
    kernels = [w for w in encoder.weights if len(w.shape) == 2 and w.path.endswith("kernel")]
    table = next(w for w in encoder.weights if w.path.endswith("token_embedding/embeddings"))
    originals = {w.path: w.numpy() for w in kernels + [table]}

    def measure(name, changes):
        for weight, value in changes:
            weight.assign(value)
        vectors = embedder.predict(inputs, batch_size=25, verbose=0)["embedding"]
        rows[name] = _cosines(vectors, oracle, n)
        print(f"{name}: {rows[name]}", flush=True)
        for weight, _ in changes:
            weight.assign(originals[weight.path])

    measure("keras float32", [])
    measure("keras, int8 weights (float arithmetic), every FC kernel",
            [(w, _int8_channels(originals[w.path])) for w in kernels])
    for kind in KERNEL_KINDS:
        measure(f"keras, int8 weights, {kind.strip('/')} kernels only",
                [(w, _int8_channels(originals[w.path])) for w in kernels if kind in w.path])
    words = originals[table.path]
    per_tensor = np.abs(words).max() / 127
    measure("keras, word embeddings int8 per tensor", [(table, np.round(words / per_tensor) * per_tensor)])
    per_row = np.maximum(np.abs(words).max(axis=1, keepdims=True), 1e-12) / 127
    measure("keras, word embeddings int8 per row", [(table, np.round(words / per_row) * per_row)])

    record = {
        "command": "python -m experiments.embedder_int8_loss " + " ".join(
            sys.argv[1:] if argv is None else argv),
        "texts": "tools/export_embedder.py check_texts: SQuAD v1.1 dev questions[::200][:50], "
                 "paragraphs[::40][:50], 256 tokens",
        "oracle": "sentence-transformers' recipe with transformers + torch (AutoModel, mean "
                  "pooling over the attention mask, F.normalize)",
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "date": datetime.date.today().isoformat(), "cosine_to_oracle": rows,
    }
    if args.output_json:
        from keras_bert.atomic_files import atomic_open

        os.makedirs(os.path.dirname(os.path.abspath(args.output_json)), exist_ok=True)
        with atomic_open(args.output_json) as f:
            json.dump(record, f, indent=2)
            f.write("\n")
    return record


if __name__ == "__main__":
    main()
