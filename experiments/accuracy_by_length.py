r"""Dev accuracy by sentence length, per arm: where does a classifier's gap come from? (issue 29:
the 2-hour mini trails random init on SST-2 dev, whose sentences are longer than its training
phrases.)
Makes: the length table in docs/pretraining.md ("SST-2 by sentence length").
Rerun:

    .venv/bin/python -m experiments.accuracy_by_length \
        --arm=pretrained:'runs/downstream_proof/sst2_lr0.0005/pretrained_seed*' \
        --arm=random:'runs/downstream_proof/sst2_lr0.0001/random_seed*'

Each run folder's `eval_predictions.tsv` (run_classifier --do_eval) names its dev rows as
`<file>:<line>`; the sentence is read back from that file and its words counted (whitespace).
A bin's accuracy is the mean over the arm's runs of each run's accuracy in that bin.
"""

import csv
import glob
import gzip
import statistics

from absl import app
from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
flags.DEFINE_multi_string("arm", [], "name:glob of run folders (with eval_predictions.tsv).")
flags.DEFINE_list("edges", ["10", "20", "30"], "Word-count bin edges.")


def _lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


def run_rows(folder):
    """`[(words in the sentence, correct)]` of one run's dev predictions."""
    rows, files = [], {}
    with open(f"{folder}/eval_predictions.tsv", encoding="utf-8") as f:
        for record in csv.DictReader(f, delimiter="\t"):
            path, _, line = record["source"].rpartition(":")
            if path not in files:
                files[path] = _lines(path)
            sentence = files[path][int(line) - 1].split("\t")[0]
            rows.append((len(sentence.split()), record["label"] == record["prediction"]))
    return rows


def by_length(runs, edges):
    """`[(bin label, sentences, mean accuracy over runs in %)]` for `runs` (lists of rows)."""
    bounds = [0, *edges, None]
    table = []
    for low, high in zip(bounds, bounds[1:]):
        def inside(words):
            return words >= low and (high is None or words < high)

        accuracies = [100.0 * statistics.fmean(ok for words, ok in rows if inside(words))
                      for rows in runs]
        count = sum(1 for words, _ in runs[0] if inside(words))
        table.append((f"{low}-{high - 1}" if high else f"{low}+", count,
                      statistics.fmean(accuracies)))
    return table


def main(argv):
    del argv
    arms = {}
    for entry in FLAGS.arm:
        name, sep, pattern = entry.partition(":")
        folders = sorted(glob.glob(pattern)) if sep else []
        if not folders:
            raise app.UsageError(f"--arm={entry}: give name:glob matching run folders.")
        arms[name] = [run_rows(folder) for folder in folders]
    if not arms:
        raise app.UsageError("--arm: give at least one name:glob of run folders.")
    edges = [int(e) for e in FLAGS.edges]
    tables = {name: by_length(runs, edges) for name, runs in arms.items()}
    first = next(iter(tables.values()))
    print("| words | sentences | " + " | ".join(f"{n} ({len(arms[n])} runs)" for n in tables) + " |")
    print("|---|---|" + "---|" * len(tables))
    for i, (label, count, _) in enumerate(first):
        print(f"| {label} | {count} | " + " | ".join(f"{t[i][2]:.1f}" for t in tables.values()) + " |")


if __name__ == "__main__":
    usage.run(main)
