"""The masking lab: pretrain BERT variants on equal budgets, fine-tune them, compare their layers.

`Lab` runs the stages of one lab directory: 1. data (a WordPiece vocabulary learnt from the
training books, pretraining records of the text as it is and with each sentence's words
shuffled, held-out text for the analysis); 2. pretrain (`run_pretraining`, one run per variant
and seed, equal steps, batch, learning rate and data order); 3. fine-tune (`run_classifier` on
GLUE tasks); 4. analyse (`analyse_layers` on held-out text); 5. collect (what exists, for the
report). Each step runs a package CLI in a subprocess with its own log, and skips what an
earlier run finished, so calling `run` again resumes. `python -m keras_bert.cli.masking_lab`
is the command line.
"""

import dataclasses
import glob
import json
import math
import os
import subprocess
import sys

STAGES = ("data", "pretrain", "finetune", "analyse", "report")


@dataclasses.dataclass
class LabSettings:
    """What every variant shares: data, budgets and fine-tuning (the CLI's flags of the same names)."""

    corpus: str
    glue_dir: str
    train_files: int = 20
    analysis_files: int = 2
    tasks: tuple = ("sst-2", "cola")
    vocab_size: int = 8192
    max_seq_length: int = 64
    num_train_steps: int = 600
    train_batch_size: int = 32
    learning_rate: float = 1e-3
    finetune_examples: int = 3000
    finetune_epochs: float = 2.0
    finetune_learning_rate: float = 2e-4
    analysis_sentences: int = 600

    # The settings the report lists (the rest are paths).
    REPORTED = ("num_train_steps", "train_batch_size", "max_seq_length", "learning_rate",
                "vocab_size", "tasks", "seeds", "finetune_examples", "finetune_epochs",
                "finetune_learning_rate", "analysis_sentences")


TASK_DIRS = {"sst-2": "SST-2", "cola": "CoLA", "mrpc": "MRPC", "rte": "RTE"}


def _run(args, log_path):
    """Runs a module of this package as a subprocess, its output appended to `log_path`."""
    command = [sys.executable, "-m", *args]
    print("$", " ".join(command[1:]), flush=True)
    with open(log_path, "a") as log:
        log.write("$ " + " ".join(command[1:]) + "\n")
        log.flush()
        # The caller's folder: paths mean what they meant there, and `-m keras_bert.cli...`
        # finds the package wherever it is installed (no repository checkout needed).
        code = subprocess.call(command, stdout=log, stderr=subprocess.STDOUT)
    if code:
        raise RuntimeError(f"{args[0]} failed (exit {code}); see {log_path}.")


class Lab:
    """Paths and stages of one lab directory.

    Args:
        output_dir: str, the lab's directory (data, runs, analyses); stages skip what it holds.
        variants: list of `Variant`s (`experiment_variants(names)`).
        seeds: list of int, pretraining and fine-tuning seeds.
        settings: `LabSettings`.
    """

    def __init__(self, output_dir, variants, seeds, settings):
        self.settings = settings
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
        s = self.settings
        files = sorted(glob.glob(s.corpus)) if "," not in s.corpus else s.corpus.split(",")
        train = files[0::3][: s.train_files]  # every third file, so authors and eras mix
        held_out = [f for f in files if f not in train][: s.analysis_files]
        if len(train) < s.train_files or len(held_out) < s.analysis_files:
            raise ValueError(
                f"corpus={s.corpus} matches {len(files)} file(s): every third one gives "
                f"{len(train)} of train_files={s.train_files} and {len(held_out)} remain for "
                f"analysis_files={s.analysis_files}. Lower them or point corpus at more files."
            )
        self.train_files, self.analysis_files = train, held_out
        corpus = os.path.join(self.dir, "corpus.txt")
        steps = [
            (out, ["keras_bert.cli.prepare_pretraining_text", f"--input_file={','.join(inputs)}",
                   f"--output_file={out}"])
            for out, inputs in ((corpus, train), (os.path.join(self.dir, "analysis.txt"), held_out))
        ]
        steps.append((self.vocab, ["keras_bert.cli.learn_vocabulary", f"--input_file={corpus}",
                                   f"--vocab_file={self.vocab}", f"--vocab_size={self.settings.vocab_size}"]))
        # Only the record sets some pretrained variant reads (word_order alone needs shuffled).
        needed = sorted({v.shuffled for v in self.variants if v.pretrain})
        for shuffled in needed:
            prefix = self.records(shuffled)
            steps.append((prefix + "*", [
                "keras_bert.cli.create_pretraining_data", f"--input_file={corpus}",
                f"--output_file={prefix}.tfrecord", "--num_output_shards=4",
                f"--vocab_file={self.vocab}", f"--max_seq_length={self.settings.max_seq_length}",
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
        return max(1, math.ceil(self.settings.max_seq_length * 0.15))

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
        steps = self.settings.num_train_steps
        args = [
            "keras_bert.cli.run_pretraining",
            f"--input_file={self.records(variant.shuffled)}.tfrecord-*",
            f"--bert_config_file={self.variant_config(variant)}",
            f"--output_dir={run_dir}",
            f"--max_seq_length={self.settings.max_seq_length}",
            f"--max_predictions_per_seq={self.max_predictions}",
            f"--train_batch_size={self.settings.train_batch_size}",
            f"--num_train_steps={steps}",
            f"--num_warmup_steps={steps // 10}",
            f"--learning_rate={self.settings.learning_rate}",
            f"--save_checkpoints_steps={max(self.settings.num_train_steps // 4, 1)}",
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
            f"--data_dir={os.path.join(self.settings.glue_dir, TASK_DIRS[task])}",
            f"--init_checkpoint={os.path.join(run_dir, 'bert_model.ckpt')}",
            f"--bert_config_file={os.path.join(run_dir, 'bert_config.json')}",
            f"--vocab_file={self.vocab}",
            "--do_train", "--do_eval",
            f"--max_seq_length={self.settings.max_seq_length}",
            "--train_batch_size=32",
            f"--learning_rate={self.settings.finetune_learning_rate}",
            f"--num_train_epochs={self.settings.finetune_epochs}",
            f"--max_train_examples={self.settings.finetune_examples}",
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
        sentences = read_sentences(os.path.join(self.dir, "analysis.txt"), self.settings.analysis_sentences)
        results = analyse_layers(
            self.run_dir(variant, seed), sentences, self.vocab, self.settings.max_seq_length, seed=seed
        )
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(results, f, indent=1)

    # === 5. report ===
    def commands(self, variant, seed):
        """The commands that made this variant and seed (the first line of each step's log)."""
        names = [f"pretrain_{variant.name}_seed{seed}"] + [
            f"finetune_{variant.name}_seed{seed}_{task}" for task in self.settings.tasks
        ]
        found = []
        for name in names:
            path = os.path.join(self.dir, name + ".log")
            if os.path.exists(path):
                with open(path) as f:
                    first = f.readline().strip()
                found.append("python " + first[2:].replace(os.getcwd() + os.sep, ""))
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
                for task in self.settings.tasks:
                    path = os.path.join(self.finetune_dir(variant, seed, task), "eval_results.json")
                    if os.path.exists(path):
                        with open(path) as f:
                            entry[task] = json.load(f)
                results.setdefault(variant.name, {})[seed] = entry
        return results


def run(lab, stages=STAGES):
    """Runs `stages` of `lab` in order, seed-major (a whole first seed, every variant and stage,
    before the next). A failed step raises `RuntimeError` naming its log, unless "report" is
    among `stages`: then it is printed and the report says what exists."""
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        raise ValueError(f"stages: unknown {unknown}; choose from {list(STAGES)}.")
    if "data" in stages:
        lab.data()
    try:
        for seed in lab.seeds:
            for variant in lab.variants:
                if "pretrain" in stages:
                    lab.pretrain(variant, seed)
            for variant in lab.variants:
                if "analyse" in stages:
                    lab.analyse(variant, seed)
                for task in lab.settings.tasks if "finetune" in stages else ():
                    lab.finetune(variant, seed, task)
    except RuntimeError as e:  # a failed step: say which and where its log is; keep the rest
        if "report" not in stages:
            raise
        print(f"Stopped: {e}", file=sys.stderr)


def report_settings(lab):
    """The report's settings block: data commands, model config, files and budgets."""
    with open(os.path.join(lab.dir, "data.json")) as f:
        data = json.load(f)
    with open(lab.config) as f:
        config = json.load(f)
    data_commands = [
        "python -m " + " ".join(args).replace(os.getcwd() + os.sep, "")
        for _, args in lab.data_steps()
    ]
    values = dict(dataclasses.asdict(lab.settings), seeds=[str(s) for s in lab.seeds])
    return {
        "data_commands": data_commands,
        "config": config,
        "train_files": [os.path.basename(p) for p in data["train_files"]],
        "analysis_files": [os.path.basename(p) for p in data["analysis_files"]],
        "flags": {name: values[name] for name in LabSettings.REPORTED},
    }
