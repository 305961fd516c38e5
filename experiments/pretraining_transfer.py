"""Does pretraining help? Fine-tunes SST-2 from a pretraining run and from random init, same budget.
Makes: the SST-2 transfer tables of docs/lab/pretraining_history.md (after phase 1; "SST-2 transfer
from phase 3", "from phase 5", "with 10 fine-tuning epochs"), one JSON per run in
docs/runs/pretrain_mini_phase1_sst2_transfer.json and docs/runs/sst2_transfer*/.
Rerun: the command quoted above each table, e.g. the one below with --json=<file>.

    .venv/bin/python experiments/pretraining_transfer.py --init_checkpoint=runs/pretrain_mini/model_phase3 \
        --train_examples=8000 --epochs=3 --learning_rate=3e-4 [--arms=pretrained] --json=out.json

Both runs use the checkpoint's bert_config.json (or an HF directory's config.json), the same
fixed SST-2 training subset (the first N rows of GLUE train, in file order), the same seed,
optimizer (AdamW, BERT schedule with 10% warmup), batch size, sequence length and number of
steps; accuracy is on the full GLUE SST-2 dev set (872 sentences). The issue-4 fine-tuning CLI will supersede this script.
"""

import argparse
import csv
import gzip
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def read_sst2(path, limit=None):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    rows = rows[:limit] if limit else rows
    return [r["sentence"] for r in rows], [int(r["label"]) for r in rows]


def run(args, init_checkpoint):
    import keras
    import numpy as np

    from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint
    from keras_bert.checkpoints.run_folder import model_config
    from keras_bert.models.bert_classifier import BertClassifier
    from keras_bert.models.bert_encoder import BertEncoder
    from keras_bert.tokenization.bert_preprocessor import BertPreprocessor
    from keras_bert.training.optimizer import create_optimizer

    keras.utils.set_random_seed(args.seed)
    config = model_config(args.init_checkpoint)
    data = os.path.join(ROOT, "..", "shared", "data", "glue", "SST-2")
    train_x, train_y = read_sst2(os.path.join(data, "train.tsv.gz"), args.train_examples)
    dev_x, dev_y = read_sst2(os.path.join(data, "dev.tsv"))
    preprocessor = BertPreprocessor(args.vocab_file, sequence_length=args.max_seq_length)
    encode = lambda texts: {k: np.asarray(v) for k, v in preprocessor(texts).items()}  # noqa: E731
    train_inputs, dev_inputs = encode(train_x), encode(dev_x)

    classifier = BertClassifier(BertEncoder.from_bert_config(config), num_classes=2)
    source = "random initialization"
    if init_checkpoint:
        source = load_init_checkpoint(classifier, init_checkpoint)
    steps = args.epochs * (len(train_x) // args.batch_size)
    classifier.compile(
        optimizer=create_optimizer(classifier, args.learning_rate, steps, steps // 10),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
        jit_compile=True,
    )
    start = time.time()
    history = classifier.fit(train_inputs, np.asarray(train_y), batch_size=args.batch_size,
                             epochs=args.epochs, shuffle=True, verbose=2,
                             validation_data=(dev_inputs, np.asarray(dev_y)), validation_batch_size=128)
    seconds = time.time() - start
    _, accuracy = classifier.evaluate(dev_inputs, np.asarray(dev_y), batch_size=128, verbose=0)
    print(f"{source}: SST-2 dev accuracy {accuracy:.4f} ({seconds:.0f} s)")
    return {"init": source, "dev_accuracy": accuracy, "train_seconds": seconds, "steps": steps,
            # Per epoch, for reading the fine-tuning curve (the schedule is the full run's, so
            # epoch k of a 10-epoch run is not a k-epoch run).
            "train_accuracy_by_epoch": [float(a) for a in history.history["accuracy"]],
            "dev_accuracy_by_epoch": [float(a) for a in history.history["val_accuracy"]]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--init_checkpoint", required=True)
    parser.add_argument("--vocab_file", default=os.path.join(ROOT, "..", "shared", "data", "vocab", "bert-base-uncased-vocab.txt"))
    parser.add_argument("--train_examples", type=int, default=8000)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--max_seq_length", type=int, default=64)
    parser.add_argument("--learning_rate", type=float, default=1e-4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--arms", default="pretrained,random_init",
                        help="Which starts to fine-tune (comma list of pretrained, random_init).")
    parser.add_argument("--json")
    args = parser.parse_args()
    arms = args.arms.split(",")
    unknown = set(arms) - {"pretrained", "random_init"}
    if unknown:
        parser.error(f"--arms: unknown {sorted(unknown)}; use pretrained and/or random_init.")
    results = {"settings": vars(args)}
    for arm in arms:
        results[arm] = run(args, args.init_checkpoint if arm == "pretrained" else None)
    print(json.dumps(results, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
