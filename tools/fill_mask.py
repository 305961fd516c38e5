"""What has a pretraining checkpoint learnt? Fill-in-the-blank queries and a zero-shot SST-2 probe.

    .venv/bin/python tools/fill_mask.py --init_checkpoint=runs/pretrain_mini/model_phase5 \
        "the acting is [MASK] and the plot is boring ." "a [MASK] , heartfelt film ."
    .venv/bin/python tools/fill_mask.py --init_checkpoint=runs/pretrain_mini/model_phase5 --sst2_prompt

Each `[MASK]` in a query is filled by the masked-LM head (top `--top_k` words). `--sst2_prompt`
reads every SST-2 dev sentence as "<sentence> it was [MASK] ." and predicts "positive" when the
head scores the positive label words above the negative ones (the cloze scoring of Schick and
Schütze's PET): a measure of sentiment knowledge in the pretrained weights with no labelled data,
50 % for a model without it. The checkpoint must have the masked-LM head (a `run_pretraining`
output directory or `ckpt-N` prefix).
"""

import argparse
import csv
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

MASK = "[MASK]"
POSITIVE_WORDS = ("great", "good", "wonderful", "fun")
NEGATIVE_WORDS = ("terrible", "bad", "awful", "boring")


def load_pretrainer(init_checkpoint):
    from experiments.pretraining_transfer import checkpoint_config

    from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint
    from keras_bert.models.bert_encoder import BertEncoder
    from keras_bert.models.bert_pretrainer import BertPretrainer

    pretrainer = BertPretrainer(BertEncoder.from_bert_config(checkpoint_config(init_checkpoint)))
    source = load_init_checkpoint(pretrainer, init_checkpoint)
    return pretrainer, source


class ClozeEncoder:
    """Turns texts with literal `[MASK]`s into pretrainer inputs (the tokenizer would split them)."""

    def __init__(self, vocab_file, max_seq_length):
        from keras_bert.tokenization.bert_tokenizer import BertTokenizer
        from keras_bert.tokenization.packer import BertPacker

        self.tokenizer = BertTokenizer(vocab_file)
        self.vocab = self.tokenizer.get_vocabulary()
        self.max_seq_length = max_seq_length
        for token in ("[CLS]", "[SEP]", MASK):
            if token not in self.vocab:
                raise ValueError(f"--vocab_file {vocab_file} has no {token}; use the checkpoint's vocab.txt.")
        self.mask_id = self.vocab.index(MASK)
        self.packer = BertPacker(max_seq_length, self.vocab.index("[CLS]"), self.vocab.index("[SEP]"))

    def encode(self, texts):
        import numpy as np
        import tensorflow as tf

        rows = []
        for text in texts:
            pieces = self.tokenizer(text.split(MASK)).to_list()
            ids = pieces[0]
            for piece in pieces[1:]:
                ids = ids + [self.mask_id] + piece
            # Keep the end (where the prompt's [MASK] is); the packer would keep the start.
            rows.append(ids[-(self.max_seq_length - 2):])
        positions = [[i + 1 for i, t in enumerate(ids) if t == self.mask_id] for ids in rows]  # +1: [CLS]
        if any(not p for p in positions):
            raise ValueError(f"every query needs at least one {MASK} (after truncation to "
                             f"--max_seq_length={self.max_seq_length})")
        inputs = {k: np.asarray(v) for k, v in self.packer(tf.ragged.constant(rows, dtype="int32")).items()}
        inputs["mask_positions"] = np.zeros((len(rows), max(len(p) for p in positions)), "int32")
        for i, pos in enumerate(positions):
            inputs["mask_positions"][i, : len(pos)] = pos
        return inputs, [len(p) for p in positions]


def fill(pretrainer, encoder, texts, top_k):
    import numpy as np

    inputs, counts = encoder.encode(texts)
    logits = np.asarray(pretrainer.predict(inputs, verbose=0)["mlm_logits"])
    results = []
    for text, row, count in zip(texts, logits, counts):
        words = [[encoder.vocab[i] for i in np.argsort(-row[m])[:top_k]] for m in range(count)]
        results.append({"text": text, "predictions": words})
    return results


def sst2_prompt(pretrainer, encoder, batch_size=128):
    import numpy as np

    with open(os.path.join(ROOT, "..", "shared", "data", "glue", "SST-2", "dev.tsv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    index = {token: i for i, token in enumerate(encoder.vocab)}
    missing = [w for w in POSITIVE_WORDS + NEGATIVE_WORDS if w not in index]
    if missing:
        raise ValueError(f"--vocab_file lacks the label words {missing}; the prompt needs whole-word entries.")
    ids = {w: index[w] for w in POSITIVE_WORDS + NEGATIVE_WORDS}
    positive = [ids[w] for w in POSITIVE_WORDS]
    negative = [ids[w] for w in NEGATIVE_WORDS]
    scores = []
    for start in range(0, len(rows), batch_size):
        batch = rows[start:start + batch_size]
        inputs, _ = encoder.encode([f"{r['sentence']} it was {MASK} ." for r in batch])
        logits = np.asarray(pretrainer.predict(inputs, verbose=0)["mlm_logits"])[:, 0, :]
        # log P(positive words) - log P(negative words); the softmax normalizer cancels.
        score = (np.logaddexp.reduce(logits[:, positive], axis=-1)
                 - np.logaddexp.reduce(logits[:, negative], axis=-1))
        scores.append(score)
    scores = np.concatenate(scores)
    labels = np.asarray([int(r["label"]) for r in rows])
    # Raw: positive when the positive words are more likely. Calibrated: the threshold is the
    # median score, so half the sentences are called positive (no labels used; a head that
    # prefers one label word everywhere otherwise hides any ranking it has learnt).
    return {"accuracy": float(((scores > 0) == labels).mean()),
            "predicted_positive": float((scores > 0).mean()),
            "median_threshold_accuracy": float(((scores > np.median(scores)) == labels).mean())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("texts", nargs="*", help=f"queries, each with one or more {MASK}")
    parser.add_argument("--init_checkpoint", required=True)
    parser.add_argument("--vocab_file", default=os.path.join(ROOT, "..", "shared", "data", "vocab", "bert-base-uncased-vocab.txt"))
    parser.add_argument("--max_seq_length", type=int, default=64)
    parser.add_argument("--top_k", type=int, default=8)
    parser.add_argument("--sst2_prompt", action="store_true", help="zero-shot SST-2 dev accuracy")
    parser.add_argument("--json")
    args = parser.parse_args()
    if not args.texts and not args.sst2_prompt:
        parser.error(f"give queries with {MASK}, or --sst2_prompt")

    pretrainer, source = load_pretrainer(args.init_checkpoint)
    encoder = ClozeEncoder(args.vocab_file, args.max_seq_length)
    results = {"init": source}
    if args.texts:
        results["fill_mask"] = fill(pretrainer, encoder, args.texts, args.top_k)
        for r in results["fill_mask"]:
            print(r["text"])
            for m, words in enumerate(r["predictions"]):
                print(f"  [MASK] {m + 1}: {', '.join(words)}")
    if args.sst2_prompt:
        prompt = results["sst2_prompt"] = sst2_prompt(pretrainer, encoder)
        prompt["label_words"] = {"positive": POSITIVE_WORDS, "negative": NEGATIVE_WORDS}
        print(f"zero-shot SST-2 dev ('<sentence> it was [MASK] .'): accuracy {prompt['accuracy']:.4f} "
              f"({prompt['predicted_positive']:.0%} called positive), median threshold "
              f"{prompt['median_threshold_accuracy']:.4f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
