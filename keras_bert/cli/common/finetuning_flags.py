"""The flags the fine-tuning CLIs share (run_classifier, run_squad, run_ner), as a `FinetuneConfig`.

google-research/bert's flag names: `--bert_config_file`, `--vocab_file`, `--init_checkpoint`,
`--do_lower_case`, `--max_seq_length`, `--do_train`, `--train_batch_size`, `--learning_rate`,
`--num_train_epochs`, `--warmup_proportion`, `--iterations_per_loop`, `--output_dir`.
`--bert_config_file` and `--vocab_file` may be left out when `--init_checkpoint` is a directory
that carries them (an HF model directory, a keras_bert run, a google checkpoint folder).
The recipe itself is library code (`keras_bert.training.finetune`); these only translate flags.
"""

import os
import sys

from absl import app
from absl import flags

from keras_bert.cli.common import precision_flags
from keras_bert.cli.common import runtime_flags
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
# The flags defined here are the key flags of the tool that calls `define_flags`: its
# `--help` lists them with its own.
flags.disclaim_key_flags()


def define_model_flags():
    """The model and input flags (also extract_features')."""
    flags.DEFINE_string("bert_config_file", None, "bert_config.json (default: from --init_checkpoint).")
    flags.DEFINE_string("vocab_file", None, "vocab.txt (default: next to --init_checkpoint).")
    flags.DEFINE_string(
        "init_checkpoint", None,
        "Weights to start from: HF dir, google TF1 checkpoint, keras_bert run or pretraining run.",
    )
    flags.DEFINE_bool("do_lower_case", True, "Lower-case input (uncased checkpoints).")
    flags.DEFINE_integer("max_seq_length", 128, "Tokens per input, after WordPiece.")


def define_flags():
    """Model flags plus the training, evaluation and precision flags of the fine-tuning tools."""
    define_model_flags()
    precision_flags.define_flags()
    flags.DEFINE_string("output_dir", None, "Checkpoints, best model, predictions, eval_results.json.")
    flags.DEFINE_bool("do_train", False, "Fine-tune (resuming from --output_dir if it has checkpoints).")
    flags.DEFINE_bool("overwrite_output_dir", False,
                      "--output_dir holds a run of another task, data or settings: delete it "
                      "and start over (without this, such a folder is refused).")
    flags.DEFINE_integer("train_batch_size", 32, "Global training batch size.")
    flags.DEFINE_integer("eval_batch_size", 64, "Global evaluation / prediction batch size.")
    flags.DEFINE_float("learning_rate", 5e-5, "Peak AdamW learning rate.")
    flags.DEFINE_float("num_train_epochs", 3.0, "Epochs over the training set (may be fractional).")
    flags.DEFINE_integer("num_train_steps", None, "Optimizer steps (overrides --num_train_epochs).")
    flags.DEFINE_float("warmup_proportion", 0.1, "Fraction of steps with linear warmup.")
    flags.DEFINE_float("weight_decay_rate", 0.01, "Decoupled weight decay (not LayerNorm/bias).")
    flags.DEFINE_integer("iterations_per_loop", 100, "Steps per progress bar and checkpoint.")
    flags.DEFINE_integer("eval_every_steps", None, "Evaluate (and keep the best) every N steps.")
    flags.DEFINE_integer("max_train_examples", None, "Train on a seeded random subset of this size.")
    # No multi_worker_mirrored: the fine-tuning tools train on one host (or a TPU).
    runtime_flags.define_flags(
        ["one_device", "mirrored", "tpu"], 12345, "the head, dropout and data order"
    )


def predict(task, model, data, what):
    """`task.predict` over `data` (`what`: its name, for the lines printed) at
    --eval_batch_size, with progress: Keras's bar on a terminal; in a log, a plain line when it
    starts, every 30 s and at the end."""
    import math

    from keras_bert.training import progress

    batches = math.ceil(data.num_rows / FLAGS.eval_batch_size)
    print(f"Predicting {what}: {len(data.examples)} examples, {data.num_rows} rows, "
          f"{batches} batch{'' if batches == 1 else 'es'}...", flush=True)
    return task.predict(model, data, FLAGS.eval_batch_size,
                        verbose=1 if progress.on_terminal() else 0,
                        callbacks=progress.prediction_callbacks(batches))


# The library's ValueError / FileNotFoundError as a one-line usage error naming the flags.
usage_errors = usage.library_errors


def check_paths(input_files=(), input_dirs=()):
    """Checks the file and folder flags before any work: --output_dir can be written, the model
    flags that name files (and `input_files`, flag names) are not folders, --init_checkpoint
    exists, the `input_dirs` flags are folders. Each failure is a one-line usage error."""
    from keras_bert.cli.common import path_flags

    if "output_dir" in FLAGS:
        path_flags.check_output_dir("output_dir", FLAGS.output_dir)
    path_flags.check_checkpoint("init_checkpoint", FLAGS.init_checkpoint)
    expected = {"bert_config_file": "bert_config.json", "vocab_file": "vocab.txt"}
    for name in (*expected, *input_files):
        if name in FLAGS:
            path_flags.check_input_file(name, FLAGS[name].value, expected.get(name))
    for name in input_dirs:
        path_flags.check_input_dir(name, FLAGS[name].value)


def finetune_config():
    """The `FinetuneConfig` the flags describe."""
    from keras_bert.training.finetune_config import FinetuneConfig
    from keras_bert.training.precision import PrecisionError
    from keras_bert.training.precision import resolve_dtype_policy

    try:  # the recipe applies it; a policy this machine cannot run fails before anything
        resolve_dtype_policy(FLAGS.dtype_policy, log=None)
    except PrecisionError as e:
        raise app.UsageError(f"--dtype_policy: {e}") from None
    with usage_errors():
        return FinetuneConfig(
            output_dir=FLAGS.output_dir, init_checkpoint=FLAGS.init_checkpoint,
            bert_config_file=FLAGS.bert_config_file, vocab_file=FLAGS.vocab_file,
            do_lower_case=FLAGS.do_lower_case, train_batch_size=FLAGS.train_batch_size,
            eval_batch_size=FLAGS.eval_batch_size, learning_rate=FLAGS.learning_rate,
            num_train_epochs=FLAGS.num_train_epochs, num_train_steps=FLAGS.num_train_steps,
            warmup_proportion=FLAGS.warmup_proportion,
            weight_decay_rate=FLAGS.weight_decay_rate,
            iterations_per_loop=FLAGS.iterations_per_loop,
            eval_every_steps=FLAGS.eval_every_steps,
            max_train_examples=FLAGS.max_train_examples, random_seed=FLAGS.random_seed,
            dtype_policy=FLAGS.dtype_policy, jit_compile=FLAGS.jit_compile,
            overwrite_output_dir=FLAGS.overwrite_output_dir,
        )


def strategy():
    """The --distribution_strategy (the CPU split first, when asked for)."""
    return runtime_flags.strategy(runtime_flags.split_cpu())


def _model_flags():
    """The model flags (`define_model_flags`) as the attributes the recipe's loaders read."""
    import types

    def flag(name, default=None):  # run_pretraining defines only some of them
        return getattr(FLAGS, name) if name in FLAGS else default

    return types.SimpleNamespace(
        bert_config_file=flag("bert_config_file"), init_checkpoint=flag("init_checkpoint"),
        vocab_file=flag("vocab_file"), do_lower_case=flag("do_lower_case", True))


def tokenizer(config=None):
    """The `ReferenceTokenizer` of `config` (default: the model flags): --vocab_file, else the
    vocab.txt next to --init_checkpoint."""
    from keras_bert.training.recipe import load_tokenizer

    with usage_errors():
        return load_tokenizer(config or _model_flags())


def bert_config():
    """The `BertConfig` of the model flags; checks --max_seq_length against it."""
    return _bert_config(_model_flags(), FLAGS.max_seq_length)


def check_model(config, task):
    """The `BertConfig`, read before minutes go into data or a model; checks
    --max_seq_length against its positions."""
    return _bert_config(config, task.max_seq_length)


def _bert_config(config, max_seq_length):
    from keras_bert.training.recipe import load_bert_config

    try:
        return load_bert_config(config, max_seq_length)
    except (FileNotFoundError, IsADirectoryError) as e:
        raise usage.flag_error(e) from None
    except ValueError as e:
        if "No model config" in str(e):
            raise app.UsageError(
                "No model config: pass --bert_config_file, or an --init_checkpoint directory "
                "with bert_config.json (google/keras_bert) or config.json (Hugging Face) in it."
            ) from None
        raise usage.flag_error(e) from None


def read(task, path, training=False):
    """`task.read(path)`, a bad file as a one-line usage error."""
    with usage_errors():
        return task.read(path, training)


def training_data(task, config, tokenizer, examples):
    """The `TaskData` of the training examples (a seeded --max_train_examples subset)."""
    from keras_bert.training.recipe import training_data as recipe_training_data

    with usage_errors():
        return recipe_training_data(task, config, tokenizer, examples)


def finetune(task, config, strategy, train_data, eval_data=None, **options):
    """Runs the recipe and draws the dev curve; returns the `FinetuneResult`."""
    from keras_bert.cli.common.run_logs import plot_eval_history
    from keras_bert.training.recipe import finetune as run_recipe

    with usage_errors():
        result = run_recipe(task, config, train_data=train_data, eval_data=eval_data,
                            strategy=strategy, **options)
    if eval_data is not None and os.path.exists(os.path.join(config.output_dir,
                                                             "eval_history.jsonl")):
        title = f"{os.path.basename(sys.argv[0])} {os.path.basename(config.output_dir)}"
        print("Dev curve:", plot_eval_history(config.output_dir, task.monitor, title))
    return result


def evaluation_model(task, config, strategy):
    """For evaluation without training: `task`'s model with every weight, heads included, from
    --init_checkpoint (a fine-tuned run)."""
    from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint
    from keras_bert.models.bert_encoder import BertEncoder

    if not config.init_checkpoint:
        raise app.UsageError(
            "Nothing to evaluate: pass --do_train, or --init_checkpoint=<output_dir>/best of "
            "a fine-tuned run."
        )
    bert_config = check_model(config, task)
    with strategy.scope():
        model = task.build_model(BertEncoder.from_bert_config(bert_config))
    try:
        report = load_init_checkpoint(model, config.init_checkpoint, require_heads=True)
    except (ValueError, FileNotFoundError) as e:
        raise app.UsageError(f"--init_checkpoint: {usage.flag_names(e)}") from None
    print("Initialized from", report)
    return model


def write_eval_results(results, task, name="eval_results.json"):
    """Writes `results` to --output_dir/`name` (keys sorted, the task's own units: fractions
    for GLUE, percent for SQuAD and conlleval) and prints its scores in percent, 2 decimals, as
    the official scripts do (then the other numbers: losses, thresholds)."""
    path = runtime_flags.write_json(name, results, sort_keys=True)
    percent = task.percent_scores(results)
    shown = [f"{k} {v:.2f}%" for k, v in percent.items()] + [
        f"{k} {v:.4g}" for k, v in results.items() if isinstance(v, float) and k not in percent]
    print(f"Wrote {path}:", ", ".join(shown))
    return path


def warm_start(model):
    """Loads --init_checkpoint into `model` (an encoder, heads not needed), if given."""
    from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint

    if not FLAGS.init_checkpoint:
        print("No --init_checkpoint: random initialization.")
        return
    try:
        report = load_init_checkpoint(model, FLAGS.init_checkpoint)
    except (ValueError, FileNotFoundError) as e:
        raise app.UsageError(f"--init_checkpoint: {usage.flag_names(e)}") from None
    print("Initialized from", report)
