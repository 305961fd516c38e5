"""The masking lab: pretrain BERT variants with equal budgets, fine-tune them, compare their layers.

    python -m keras_bert.cli.masking_lab --experiment=all --output_dir=runs/masking_lab \
        --report=docs/masking_lab.md

One command runs a named experiment end to end at the `mini` size (4 layers, hidden 256) on the
public-domain books in ../shared/data/text/gutenberg (or --corpus):
  1. data: a WordPiece vocabulary learnt from the training books, seq-64 pretraining records of
     the text as it is and with the words of every sentence shuffled, held-out books for analysis;
  2. pretrain: every variant the experiments need, per seed, with the same steps, batch, learning
     rate and data order (`run_pretraining`; only --objective, the masking split, the text or the
     depth differ; the next-sentence loss is off for all, so only the token objective differs);
  3. fine-tune: each on GLUE SST-2 and CoLA (`run_classifier`, same budget and seed);
  4. analyse: per layer, linear CKA with the input embeddings and with the previous layer, and a
     linear probe of the input token's identity (`keras_bert.analysis`), on held-out text;
  5. report: Markdown with every number, the plots and the commands.
Every stage skips what an earlier invocation finished, so re-running the command resumes.
Experiments: objectives (MLM vs causal LM), replacement (100% [MASK] vs 80/10/10 vs 80/20 same
vs 80/20 random), word_order (shuffled vs ordered), see_itself (next-token prediction with
bidirectional attention), or all.
"""

import dataclasses
import os
import sys

from absl import app
from absl import flags

from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
# The project's shared data beside a checkout, from the folder the command runs in (its root).
SHARED = os.path.join("..", "shared", "data")

flags.DEFINE_list("experiment", ["all"], "Experiments to run (comma list), or all.")
flags.DEFINE_string("output_dir", "runs/masking_lab", "Data, runs, analyses (resumable).")
flags.DEFINE_string("report", None, "Where to write the Markdown report (plots next to it).")
flags.DEFINE_string(
    "corpus", os.path.join(SHARED, "text", "gutenberg", "*.txt.gz"),
    "Raw text files (glob or comma list); every third file from the first trains, "
    "--analysis_files others are held out.",
)
flags.DEFINE_integer("train_files", 20, "Corpus files to pretrain on.")
flags.DEFINE_integer("analysis_files", 2, "Held-out corpus files for the layer analysis.")
flags.DEFINE_string("glue_dir", os.path.join(SHARED, "glue"), "GLUE data (SST-2/, CoLA/).")
flags.DEFINE_list("tasks", ["sst-2", "cola"], "GLUE tasks to fine-tune on.")
flags.DEFINE_list("seeds", ["0", "1"], "Pretraining (and fine-tuning) seeds.")
flags.DEFINE_integer("vocab_size", 8192, "Size of the WordPiece vocabulary learnt from the corpus.")
flags.DEFINE_integer("max_seq_length", 64, "Pretraining sequence length.")
flags.DEFINE_integer("num_train_steps", 600, "Pretraining steps per variant (the equal budget).")
flags.DEFINE_integer("train_batch_size", 32, "Pretraining batch size.")
flags.DEFINE_float("learning_rate", 1e-3, "Pretraining peak learning rate.")
flags.DEFINE_integer("finetune_examples", 3000, "Training examples per GLUE task (seeded subset).")
flags.DEFINE_float("finetune_epochs", 2.0, "Fine-tuning epochs.")
flags.DEFINE_float("finetune_learning_rate", 2e-4, "Fine-tuning peak learning rate.")
flags.DEFINE_integer("analysis_sentences", 600, "Held-out sentences the layer analysis reads.")
flags.DEFINE_list(
    "stages", ["data", "pretrain", "finetune", "analyse", "report"], "Stages to run, in order."
)


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    from keras_bert.analysis.masking_lab.experiments import EXPERIMENTS
    from keras_bert.analysis.masking_lab.experiments import experiment_variants
    from keras_bert.analysis.masking_lab.lab import Lab
    from keras_bert.analysis.masking_lab.lab import LabSettings
    from keras_bert.analysis.masking_lab.lab import report_settings
    from keras_bert.analysis.masking_lab.lab import run

    names = sorted(EXPERIMENTS) if FLAGS.experiment == ["all"] else FLAGS.experiment
    settings = LabSettings(**{f.name: FLAGS[f.name].value for f in dataclasses.fields(LabSettings)})
    try:
        variants = experiment_variants(names)
        seeds = [int(s) for s in FLAGS.seeds]
        lab = Lab(FLAGS.output_dir, variants, seeds, settings)
        run(lab, FLAGS.stages)
    except ValueError as e:
        raise usage.flag_error(e) from None
    except RuntimeError as e:  # a failed step, with its log
        sys.exit(f"Stopped: {e}")
    if "report" in FLAGS.stages:
        from keras_bert.analysis.masking_lab.report import write_report

        report = FLAGS.report or os.path.join(lab.dir, "report.md")
        command = "python -m keras_bert.cli.masking_lab " + " ".join(sys.argv[1:])
        write_report(report, lab.collect(), names, seeds, settings=report_settings(lab),
                     command=command)
        print(f"Report: {report}")


if __name__ == "__main__":
    usage.run(main)
