"""Does a pretraining checkpoint know sentiment with no labels? A zero-shot SST-2 cloze probe.

Makes: docs/lab/pretraining_history.md, the phase-6 table's "zero-shot cloze probe" row
(`docs/runs/pretrain_mini_phase6_fill_mask.json`). Rerun:
`python -m experiments.cloze_probe --init_checkpoint=runs/pretrain_mini/model_phase6 --json=<file>`.

Every SST-2 dev sentence is read as "<sentence> it was [MASK] ." and called positive when the
masked-LM head scores the positive label words above the negative ones (the cloze scoring of
Schick and Schütze's PET): 50 % for a model without sentiment knowledge. The filling itself is
`keras_bert.analysis.MaskFiller` (`python -m keras_bert.cli.fill_mask` for your own queries).
"""

import argparse
import csv
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

POSITIVE_WORDS = ("great", "good", "wonderful", "fun")
NEGATIVE_WORDS = ("terrible", "bad", "awful", "boring")


def sst2_prompt(filler, sentences, labels, batch_size=128):
    """Raw and median-threshold zero-shot accuracy of `filler` (a `MaskFiller`) on SST-2."""
    import numpy as np

    tokenizer = filler.tokenizer
    missing = [w for w in POSITIVE_WORDS + NEGATIVE_WORDS if w not in tokenizer.vocabulary]
    if missing:
        raise ValueError(f"The vocabulary lacks the label words {missing}; the prompt needs whole-word entries.")
    positive = [tokenizer.token_to_id(w) for w in POSITIVE_WORDS]
    negative = [tokenizer.token_to_id(w) for w in NEGATIVE_WORDS]
    scores = []
    for start in range(0, len(sentences), batch_size):
        batch = sentences[start:start + batch_size]
        logits, _ = filler.logits([f"{s} it was [MASK] ." for s in batch], batch_size)
        logits = logits[:, 0, :]
        # log P(positive words) - log P(negative words); the softmax normalizer cancels.
        scores.append(np.logaddexp.reduce(logits[:, positive], axis=-1)
                      - np.logaddexp.reduce(logits[:, negative], axis=-1))
    scores, labels = np.concatenate(scores), np.asarray(labels)
    # Raw: positive when the positive words are more likely. Median threshold: half the
    # sentences are called positive (no labels used; a head that prefers one label word
    # everywhere otherwise hides any ranking it has learnt).
    return {"accuracy": float(((scores > 0) == labels).mean()),
            "predicted_positive": float((scores > 0).mean()),
            "median_threshold_accuracy": float(((scores > np.median(scores)) == labels).mean()),
            "label_words": {"positive": POSITIVE_WORDS, "negative": NEGATIVE_WORDS}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--init_checkpoint", required=True, help="a pretraining run with its masked-LM head")
    parser.add_argument("--vocab_file", default=None, help="default: the vocab.txt next to the checkpoint")
    parser.add_argument("--sst2_dev_file",
                        default=os.path.join(ROOT, "..", "shared", "data", "glue", "SST-2", "dev.tsv"))
    parser.add_argument("--max_seq_length", type=int, default=64)
    parser.add_argument("--json")
    args = parser.parse_args()

    from keras_bert.analysis.mask_filler import MaskFiller
    from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint
    from keras_bert.checkpoints.run_folder import VOCAB_FILE, model_config, model_folder
    from keras_bert.models.bert_encoder import BertEncoder
    from keras_bert.models.bert_pretrainer import BertPretrainer
    from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer

    vocab_file = args.vocab_file or os.path.join(model_folder(args.init_checkpoint), VOCAB_FILE)
    pretrainer = BertPretrainer(BertEncoder.from_bert_config(model_config(args.init_checkpoint)))
    source = load_init_checkpoint(pretrainer, args.init_checkpoint, require_heads=True)
    filler = MaskFiller(pretrainer, ReferenceTokenizer(vocab_file), args.max_seq_length)
    with open(args.sst2_dev_file, encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    result = sst2_prompt(filler, [r["sentence"] for r in rows], [int(r["label"]) for r in rows])
    print(f"zero-shot SST-2 dev ('<sentence> it was [MASK] .'): accuracy {result['accuracy']:.4f} "
          f"({result['predicted_positive']:.0%} called positive), median threshold "
          f"{result['median_threshold_accuracy']:.4f}")
    if args.json:
        from keras_bert.atomic_files import atomic_open

        with atomic_open(args.json, encoding="utf-8") as f:
            json.dump({"init": source, "sst2_prompt": result}, f, indent=1)


if __name__ == "__main__":
    main()
