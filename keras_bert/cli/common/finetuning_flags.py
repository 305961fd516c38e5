"""The flags and set-up the fine-tuning CLIs share (run_classifier, run_squad, run_ner).

google-research/bert's flag names: `--bert_config_file`, `--vocab_file`, `--init_checkpoint`,
`--do_lower_case`, `--max_seq_length`, `--do_train`, `--train_batch_size`, `--learning_rate`,
`--num_train_epochs`, `--warmup_proportion`, `--iterations_per_loop`, `--output_dir`.
`--bert_config_file` and `--vocab_file` may be left out when `--init_checkpoint` is a directory
that carries them (an HF model directory, a keras_bert run, a google checkpoint folder).
"""

import math
import os
import sys
import warnings

from absl import app
from absl import flags

from keras_bert.atomic_files import atomic_open
from keras_bert.cli.common import precision_flags
from keras_bert.cli.common import runtime_flags
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS


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


def progress():
    """Keras `verbose` for long predictions: a progress bar on a terminal, quiet in logs."""
    return "auto" if sys.stdout.isatty() else 0


def bert_config():
    """The `BertConfig`: --bert_config_file, else the one --init_checkpoint carries."""
    try:
        config = _bert_config()
    except (ValueError, FileNotFoundError) as e:
        raise usage.flag_error(e) from None
    if FLAGS.max_seq_length > config.max_position_embeddings:
        raise app.UsageError(
            f"--max_seq_length={FLAGS.max_seq_length} exceeds the model's "
            f"max_position_embeddings={config.max_position_embeddings}."
        )
    return config


def _bert_config():
    from keras_bert.checkpoints.run_folder import model_config
    from keras_bert.models.bert_config import BertConfig

    if FLAGS.bert_config_file:
        return BertConfig.from_json_file(FLAGS.bert_config_file)
    if FLAGS.init_checkpoint:
        try:
            return model_config(FLAGS.init_checkpoint)
        except FileNotFoundError:
            pass  # the message below names the flags
    raise app.UsageError(
        "No model config: pass --bert_config_file, or an --init_checkpoint directory with "
        "bert_config.json (google/keras_bert) or config.json (Hugging Face) in it."
    )


def tokenizer():
    """A `ReferenceTokenizer` from --vocab_file, else the vocab.txt next to --init_checkpoint."""
    from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer

    path = FLAGS.vocab_file
    if not path and FLAGS.init_checkpoint:
        from keras_bert.checkpoints import run_folder

        folder = run_folder.model_folder(FLAGS.init_checkpoint)
        candidate = os.path.join(folder, run_folder.VOCAB_FILE)
        path = candidate if os.path.exists(candidate) else None
    if not path:
        raise app.UsageError(
            "No vocabulary: pass --vocab_file (the vocab.txt of the checkpoint), or an "
            "--init_checkpoint directory that has vocab.txt."
        )
    return ReferenceTokenizer(path, do_lower_case=FLAGS.do_lower_case)


def num_train_steps(num_examples):
    """--num_train_steps, else epochs x examples / batch (rounded up). Training batches are
    whole, so there must be one batch of examples at least."""
    if num_examples < FLAGS.train_batch_size:
        raise app.UsageError(
            f"{num_examples} training examples are fewer than one batch of "
            f"--train_batch_size={FLAGS.train_batch_size}: lower it or add data.")
    if FLAGS.num_train_steps:
        return FLAGS.num_train_steps
    return max(1, math.ceil(FLAGS.num_train_epochs * num_examples / FLAGS.train_batch_size))


def compile_model(model, steps, loss, jit_compile, loss_weights=None, metrics=None):
    """Compiles `model` with BERT's AdamW, warmup and linear decay, and global-norm clipping 1.0.

    `jit_compile`: the second value of `precision_flags.apply()`.
    """
    # QA and NER heads do not read pooled_output, so the pooler gets no gradient; that is
    # expected (google's run_squad leaves it untouched too), not a mistake worth a warning.
    warnings.filterwarnings("ignore", message=r"Gradients do not exist for variables \['pooler/")
    from keras_bert.training.optimizer import create_optimizer

    optimizer = create_optimizer(
        model,
        FLAGS.learning_rate,
        steps,
        int(steps * FLAGS.warmup_proportion),
        weight_decay_rate=FLAGS.weight_decay_rate,
        global_clipnorm=1.0,
    )
    model.compile(
        optimizer=optimizer, loss=loss, loss_weights=loss_weights, metrics=metrics,
        jit_compile=jit_compile,
    )


def pad_to_multiple_of(jit_compile):
    """Training batches' length rounding: under XLA a multiple of 16, so a step compiles for a
    handful of lengths (each compiled once) instead of one per length; else exact lengths."""
    return 16 if jit_compile else 1


def training_checkpoint():
    """The latest training checkpoint in --output_dir/checkpoints, or None. (The folder alone
    is not one: a first save that failed, for a full disk or a kill, leaves it behind.)"""
    import tensorflow as tf

    from keras_bert.checkpoints import run_folder

    return tf.train.latest_checkpoint(run_folder.training_checkpoints_dir(FLAGS.output_dir))


def warm_start(model, require_head):
    """Loads --init_checkpoint into `model`, unless a --do_train run resumes from its own
    checkpoint (which holds every weight). `require_head`: the task head must be in it."""
    from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint

    # extract_features shares this but has no training (and no --do_train).
    resume_from = "do_train" in FLAGS and FLAGS.do_train and training_checkpoint()
    if resume_from:
        print(f"Resuming from {resume_from} (--init_checkpoint is not read).")
        return
    if not FLAGS.init_checkpoint:
        if require_head:
            raise app.UsageError(
                "Nothing to evaluate: pass --do_train, or --init_checkpoint=<output_dir>/best of "
                "a fine-tuned run."
            )
        print("No --init_checkpoint: training from random initialization.")
        return
    try:
        report = load_init_checkpoint(model, FLAGS.init_checkpoint, require_heads=require_head)
    except (ValueError, FileNotFoundError) as e:
        raise app.UsageError(f"--init_checkpoint: {usage.flag_names(e)}") from None
    print("Initialized from", report)


def write_eval_results(results, name="eval_results.json"):
    """Writes `results` to --output_dir/`name` (keys sorted) and prints its scores."""
    path = runtime_flags.write_json(name, results, sort_keys=True)
    print(f"Wrote {path}:", ", ".join(f"{k} {v:.4g}" for k, v in results.items()
                                      if isinstance(v, float)))
    return path


def finetuner(model, strategy, tokenizer, steps, num_examples, evaluate_fn=None, monitor=None):
    """The `Finetuner` of a tool: dev scored every epoch (or --eval_every_steps).

    Also puts vocab.txt next to the best checkpoint, so `--init_checkpoint=<output_dir>/best`
    is a whole model folder.
    """
    from keras_bert.training.distribute import per_replica_batch_size
    from keras_bert.checkpoints import run_folder
    from keras_bert.training.finetuner import Finetuner
    from keras_bert.training.pretraining_trainer import is_chief

    try:
        per_replica_batch_size(FLAGS.train_batch_size, strategy)
    except ValueError as e:
        raise usage.flag_error(e) from None
    steps_per_epoch = max(1, num_examples // FLAGS.train_batch_size)
    result = Finetuner(
        model, FLAGS.output_dir, steps, min(FLAGS.iterations_per_loop, steps_per_epoch),
        evaluate_fn=evaluate_fn, monitor=monitor,
        eval_every_steps=FLAGS.eval_every_steps or steps_per_epoch,
        is_chief=is_chief(strategy),
    )
    path = os.path.join(run_folder.best_dir(FLAGS.output_dir), run_folder.VOCAB_FILE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with atomic_open(path, encoding="utf-8") as f:
        f.writelines(token + "\n" for token in tokenizer.vocabulary)
    return result


def load_best(model, finetuner):
    """Loads the best checkpoint of a finished run into `model` (evaluation uses the best), and
    draws the run's dev curve when it was evaluated during training."""
    from keras_bert.checkpoints.tf1_checkpoint import load_tf1_checkpoint
    from keras_bert.cli.common.run_logs import plot_eval_history

    load_tf1_checkpoint(model, finetuner.best_checkpoint)
    best = finetuner.best_metrics() or {}
    print(f"Evaluating the best checkpoint (step {best.get('step', '?')}).")
    if finetuner.evaluate_fn is not None and finetuner.is_chief:
        title = f"{os.path.basename(sys.argv[0])} {os.path.basename(FLAGS.output_dir)}"
        print("Dev curve:", plot_eval_history(FLAGS.output_dir, finetuner.monitor, title))
