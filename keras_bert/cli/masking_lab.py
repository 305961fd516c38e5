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

import glob
import json
import math
import os
import subprocess
import sys

from absl import app
from absl import flags

from keras_bert.cli import usage

FLAGS = flags.FLAGS
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(ROOT, "..", "shared", "data")

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

TASK_DIRS = {"sst-2": "SST-2", "cola": "CoLA", "mrpc": "MRPC", "rte": "RTE"}


def _run(args, log_path):
    """Runs a module of this package as a subprocess, its output appended to `log_path`."""
    command = [sys.executable, "-m", *args]
    print("$", " ".join(command[1:]), flush=True)
    with open(log_path, "a") as log:
        log.write("$ " + " ".join(command[1:]) + "\n")
        log.flush()
        code = subprocess.call(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    if code:
        raise RuntimeError(f"{args[0]} failed (exit {code}); see {log_path}.")


class Lab:
    """Paths and stages of one lab directory."""

    def __init__(self, output_dir, variants, seeds):
        self.dir = os.path.abspath(output_dir)
        self.variants = variants
        self.seeds = seeds
        self.vocab = os.path.join(self.dir, "vocab.txt")
        self.config = os.path.join(self.dir, "bert_config.json")
        self.log = os.path.join(self.dir, "lab.log")
        os.makedirs(self.dir, exist_ok=True)

    def run_dir(self, variant, seed):
        return os.path.join(self.dir, "runs", f"{variant.name}_seed{seed}")

    def records(self, shuffled):
        return os.path.join(self.dir, "data", "shuffled" if shuffled else "ordered", "records")

    # === 1. data ===
    def data_steps(self):
        """`[(output, args)]`: the data commands, each run when its output is missing."""
        files = sorted(glob.glob(FLAGS.corpus)) if "," not in FLAGS.corpus else FLAGS.corpus.split(",")
        train = files[0::3][: FLAGS.train_files]  # every third file, so authors and eras mix
        held_out = [f for f in files if f not in train][: FLAGS.analysis_files]
        if len(train) < FLAGS.train_files or len(held_out) < FLAGS.analysis_files:
            raise app.UsageError(
                f"--corpus={FLAGS.corpus} matches {len(files)} file(s): every third one gives "
                f"{len(train)} of --train_files={FLAGS.train_files} and {len(held_out)} remain for "
                f"--analysis_files={FLAGS.analysis_files}. Lower them or point --corpus at more files."
            )
        self.train_files, self.analysis_files = train, held_out
        corpus = os.path.join(self.dir, "corpus.txt")
        steps = [
            (out, ["keras_bert.cli.prepare_pretraining_text", f"--input_file={','.join(inputs)}",
                   f"--output_file={out}"])
            for out, inputs in ((corpus, train), (os.path.join(self.dir, "analysis.txt"), held_out))
        ]
        steps.append((self.vocab, ["keras_bert.cli.learn_vocabulary", f"--input_file={corpus}",
                                   f"--vocab_file={self.vocab}", f"--vocab_size={FLAGS.vocab_size}"]))
        for shuffled in (False, True):
            prefix = self.records(shuffled)
            steps.append((prefix + "*", [
                "keras_bert.cli.create_pretraining_data", f"--input_file={corpus}",
                f"--output_file={prefix}.tfrecord", "--num_output_shards=4",
                f"--vocab_file={self.vocab}", f"--max_seq_length={FLAGS.max_seq_length}",
                f"--max_predictions_per_seq={self.max_predictions}", "--dupe_factor=1",
                "--random_seed=1", f"--shuffle_word_order={shuffled}"]))
        return steps

    def data(self):
        for output, args in self.data_steps():
            if not glob.glob(output):
                os.makedirs(os.path.dirname(output), exist_ok=True)
                _run(args, self.log)
        if not os.path.exists(self.config):
            from keras_bert.models.bert_config import BertConfig

            with open(self.vocab, encoding="utf-8") as f:
                vocab_size = sum(1 for _ in f)
            BertConfig.mini(vocab_size=vocab_size).to_json_file(self.config)
        with open(os.path.join(self.dir, "data.json"), "w") as f:
            json.dump({"train_files": self.train_files, "analysis_files": self.analysis_files}, f, indent=1)

    @property
    def max_predictions(self):
        return max(1, math.ceil(FLAGS.max_seq_length * 0.15))

    # === 2. pretrain ===
    def variant_config(self, variant):
        if variant.num_hidden_layers is None:
            return self.config
        from keras_bert.models.bert_config import BertConfig

        path = os.path.join(self.dir, f"bert_config_{variant.num_hidden_layers}layer.json")
        if not os.path.exists(path):
            config = BertConfig.from_json_file(self.config).to_dict()
            BertConfig(**{**config, "num_hidden_layers": variant.num_hidden_layers}).to_json_file(path)
        return path

    def pretrain(self, variant, seed):
        run_dir = self.run_dir(variant, seed)
        if os.path.exists(os.path.join(run_dir, "bert_model.ckpt.index")):
            return
        if not variant.pretrain:
            self.initialize(run_dir, seed)
            return
        steps = FLAGS.num_train_steps
        args = [
            "keras_bert.cli.run_pretraining",
            f"--input_file={self.records(variant.shuffled)}.tfrecord-*",
            f"--bert_config_file={self.variant_config(variant)}",
            f"--output_dir={run_dir}",
            f"--max_seq_length={FLAGS.max_seq_length}",
            f"--max_predictions_per_seq={self.max_predictions}",
            f"--train_batch_size={FLAGS.train_batch_size}",
            f"--num_train_steps={steps}",
            f"--num_warmup_steps={steps // 10}",
            f"--learning_rate={FLAGS.learning_rate}",
            f"--save_checkpoints_steps={max(FLAGS.num_train_steps // 4, 1)}",
            "--iterations_per_loop=20",
            # --dtype_policy and --jit_compile: run_pretraining's per-machine defaults.
            f"--random_seed={seed}",
            f"--objective={variant.objective}",
            "--nsp_loss_weight=0",
        ]
        if variant.objective == "mlm":
            args += [
                "--dynamic_masking",
                f"--vocab_file={self.vocab}",
                f"--mask_token_rate={variant.mask_token_rate}",
                f"--random_token_rate={variant.random_token_rate}",
            ]
        _run(args, os.path.join(self.dir, f"pretrain_{variant.name}_seed{seed}.log"))

    def initialize(self, run_dir, seed):
        """The untrained baseline: a `BertPretrainer` initialized as `run_pretraining` does for
        `seed` (same seeding, same constructor), saved in the same format, 0 steps."""
        import keras

        from keras_bert.checkpoints.tf1_checkpoint import save_tf1_checkpoint
        from keras_bert.models.bert_config import BertConfig
        from keras_bert.models.bert_encoder import BertEncoder
        from keras_bert.models.bert_pretrainer import BertPretrainer
        from keras_bert.training.pretraining_objective import write_pretraining_objective

        config = BertConfig.from_json_file(self.config)
        keras.utils.set_random_seed(seed)
        model = BertPretrainer(BertEncoder.from_bert_config(config))
        os.makedirs(run_dir, exist_ok=True)
        config.to_json_file(os.path.join(run_dir, "bert_config.json"))
        write_pretraining_objective(run_dir, "mlm", num_train_steps=0)
        save_tf1_checkpoint(model, os.path.join(run_dir, "bert_model.ckpt"))

    # === 3. fine-tune ===
    def finetune_dir(self, variant, seed, task):
        return os.path.join(self.dir, "finetune", f"{variant.name}_seed{seed}_{task}")

    def finetune(self, variant, seed, task):
        out = self.finetune_dir(variant, seed, task)
        if not variant.fine_tune or os.path.exists(os.path.join(out, "eval_results.json")):
            return
        run_dir = self.run_dir(variant, seed)
        _run([
            "keras_bert.cli.run_classifier",
            f"--task_name={task}",
            f"--data_dir={os.path.join(FLAGS.glue_dir, TASK_DIRS[task])}",
            f"--init_checkpoint={os.path.join(run_dir, 'bert_model.ckpt')}",
            f"--bert_config_file={os.path.join(run_dir, 'bert_config.json')}",
            f"--vocab_file={self.vocab}",
            "--do_train", "--do_eval",
            f"--max_seq_length={FLAGS.max_seq_length}",
            "--train_batch_size=32",
            f"--learning_rate={FLAGS.finetune_learning_rate}",
            f"--num_train_epochs={FLAGS.finetune_epochs}",
            f"--max_train_examples={FLAGS.finetune_examples}",
            f"--random_seed={seed}",
            f"--output_dir={out}",
        ], os.path.join(self.dir, f"finetune_{variant.name}_seed{seed}_{task}.log"))

    # === 4. analyse ===
    def analysis_path(self, variant, seed):
        return os.path.join(self.dir, "analysis", f"{variant.name}_seed{seed}.json")

    def analyse(self, variant, seed):
        from keras_bert.analysis.layer_analysis import analyse_layers
        from keras_bert.analysis.layer_analysis import read_sentences

        path = self.analysis_path(variant, seed)
        if os.path.exists(path):
            return
        print(f"Analysing {variant.name} seed {seed}...", flush=True)
        sentences = read_sentences(os.path.join(self.dir, "analysis.txt"), FLAGS.analysis_sentences)
        results = analyse_layers(
            self.run_dir(variant, seed), sentences, self.vocab, FLAGS.max_seq_length, seed=seed
        )
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(results, f, indent=1)

    # === 5. report ===
    def commands(self, variant, seed):
        """The commands that made this variant and seed (the first line of each step's log)."""
        names = [f"pretrain_{variant.name}_seed{seed}"] + [
            f"finetune_{variant.name}_seed{seed}_{task}" for task in FLAGS.tasks
        ]
        found = []
        for name in names:
            path = os.path.join(self.dir, name + ".log")
            if os.path.exists(path):
                with open(path) as f:
                    first = f.readline().strip()
                found.append("python " + first[2:].replace(ROOT + os.sep, ""))
        return found

    def collect(self):
        """`{variant: {seed: {"pretraining": ..., "analysis": ..., "<task>": ...}}}` of what exists."""
        results = {}
        for variant in self.variants:
            for seed in self.seeds:
                entry = {}
                log = os.path.join(self.run_dir(variant, seed), "train_log.jsonl")
                if os.path.exists(log):
                    with open(log) as f:
                        entry["pretraining"] = [json.loads(line) for line in f if line.strip()]
                if os.path.exists(self.analysis_path(variant, seed)):
                    with open(self.analysis_path(variant, seed)) as f:
                        entry["analysis"] = json.load(f)
                entry["commands"] = self.commands(variant, seed)
                for task in FLAGS.tasks:
                    path = os.path.join(self.finetune_dir(variant, seed, task), "eval_results.json")
                    if os.path.exists(path):
                        with open(path) as f:
                            entry[task] = json.load(f)
                results.setdefault(variant.name, {})[seed] = entry
        return results


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    from keras_bert.analysis.lab_experiments import EXPERIMENTS
    from keras_bert.analysis.lab_experiments import experiment_variants

    names = sorted(EXPERIMENTS) if FLAGS.experiment == ["all"] else FLAGS.experiment
    try:
        variants = experiment_variants(names)
        seeds = [int(s) for s in FLAGS.seeds]
    except ValueError as e:
        raise usage.flag_error(e) from None
    lab = Lab(FLAGS.output_dir, variants, seeds)
    if "data" in FLAGS.stages:
        lab.data()
    try:
        # Seed-major: a whole first seed (every variant, every stage) before the next.
        for seed in seeds:
            for variant in variants:
                if "pretrain" in FLAGS.stages:
                    lab.pretrain(variant, seed)
            for variant in variants:
                if "analyse" in FLAGS.stages:
                    lab.analyse(variant, seed)
                for task in FLAGS.tasks if "finetune" in FLAGS.stages else ():
                    lab.finetune(variant, seed, task)
    except RuntimeError as e:  # a failed step: say which and where its log is; keep the rest
        print(f"Stopped: {e}", file=sys.stderr)
        if "report" not in FLAGS.stages:
            sys.exit(1)
    if "report" in FLAGS.stages:
        from keras_bert.analysis.lab_report import write_report

        report = FLAGS.report or os.path.join(lab.dir, "report.md")
        write_report(report, lab.collect(), names, seeds, settings=_settings(lab), command=_command())
        print(f"Report: {report}")


def _settings(lab):
    with open(os.path.join(lab.dir, "data.json")) as f:
        data = json.load(f)
    with open(lab.config) as f:
        config = json.load(f)
    data_commands = [
        "python -m " + " ".join(args).replace(ROOT + os.sep, "") for _, args in lab.data_steps()
    ]
    return {
        "data_commands": data_commands,
        "config": config,
        "train_files": [os.path.basename(p) for p in data["train_files"]],
        "analysis_files": [os.path.basename(p) for p in data["analysis_files"]],
        "flags": {name: FLAGS[name].value for name in (
            "num_train_steps", "train_batch_size", "max_seq_length", "learning_rate",
            "vocab_size", "tasks", "seeds", "finetune_examples", "finetune_epochs",
            "finetune_learning_rate", "analysis_sentences",
        )},
    }


def _command():
    return "python -m keras_bert.cli.masking_lab " + " ".join(sys.argv[1:])


if __name__ == "__main__":
    usage.run(main)
