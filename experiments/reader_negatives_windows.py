r"""Training windows for a reader that compares passages: a seeded subset of SQuAD train questions, each with its own paragraph and its BM25-hardest article negatives.

Makes: the windows of docs/retrieval.md, "A reader trained on negative passages (CPU trial)",
which `tools.gpu_squad` continues the shipped reader on (on the CPU: 48 min for 16,264 windows).
Rerun: `docs/runs/reader_negatives_run.sh` (whole trial, resumable), or just the windows:

    .venv/bin/python -m experiments.reader_negatives_windows --questions=8000 \
        --output=runs/reader_negatives/windows_8k.npz

`tools.gpu_bundle --squad_windows=-1 --squad_article_negatives=1 --squad_negatives_by=bm25`
packs the same kind of windows for every training question (the GPU's run); this takes a
subset of the questions first, so each chosen question comes with its negatives, and the
CPU's run stays under an hour.
"""

import argparse
import json
import os
import sys
import time

from tools.squad_windows import NEGATIVES_BY


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--squad", default="../shared/data/squad/train-v1.1-reconstructed.json.gz")
    parser.add_argument("--vocab", default="apps/models/vocab.txt")
    parser.add_argument("--questions", type=int, default=8000, help="Questions taken (seeded).")
    parser.add_argument("--per_question", type=int, default=1, help="Negatives per question.")
    parser.add_argument("--negatives_by", choices=NEGATIVES_BY, default="bm25")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max_seq_length", type=int, default=384)
    parser.add_argument("--doc_stride", type=int, default=128)
    parser.add_argument("--output", required=True, help="The .npz (tools.squad_windows format).")
    args = parser.parse_args(argv)
    for path in (args.squad, args.vocab):
        if not os.path.exists(path):
            parser.error(f"{path} does not exist.")
    if args.questions <= 0 or args.per_question < 0:
        parser.error("--questions must be > 0 and --per_question >= 0.")

    from keras_bert.data.data_files import open_data_file
    from keras_bert.data.seeded_subset import seeded_subset
    from keras_bert.data.tasks.squad_features import convert_squad_examples
    from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
    from tools.squad_windows import article_negative_examples
    from tools.squad_windows import pack_windows

    started = time.time()
    with open_data_file(args.squad) as f:
        dataset = json.load(f)
    ids = [qa["id"] for a in dataset["data"] for p in a["paragraphs"] for qa in p["qas"]]
    if args.questions > len(ids):
        parser.error(f"--questions={args.questions}: the file has {len(ids)}.")
    keep = {ids[i] for i in seeded_subset(len(ids), args.questions, args.seed)}
    for article in dataset["data"]:
        for paragraph in article["paragraphs"]:
            paragraph["qas"] = [qa for qa in paragraph["qas"] if qa["id"] in keep]
    examples = article_negative_examples(dataset, args.per_question, args.negatives_by,
                                         seed=args.seed, source=args.squad)
    windows = convert_squad_examples(examples, ReferenceTokenizer(args.vocab),
                                     max_seq_length=args.max_seq_length,
                                     doc_stride=args.doc_stride, is_training=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    partial = args.output + ".partial.npz"
    pack_windows(windows, partial)
    os.replace(partial, args.output)
    labels = windows.labels()
    cls = int(((labels["start_logits"] == 0) & (labels["end_logits"] == 0)).sum())
    print(f"{len(examples)} questions ({sum(e.is_impossible for e in examples)} negatives): "
          f"{len(labels['start_logits'])} windows, {cls} with the [CLS] target, "
          f"{time.time() - started:.0f} s -> {args.output}")


if __name__ == "__main__":
    sys.exit(main())
