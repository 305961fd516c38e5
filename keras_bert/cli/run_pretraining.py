"""Pretrains BERT (masked LM + next sentence) on TFRecords, on one device, many, several hosts or a TPU.

    python -m keras_bert.cli.run_pretraining \
        --input_file='out/pretrain.tfrecord-*' --bert_config_file=bert_config.json \
        --output_dir=runs/mini --max_seq_length=128 --max_predictions_per_seq=20 \
        --train_batch_size=32 --num_train_steps=10000 --num_warmup_steps=100 \
        --learning_rate=1e-4 --save_checkpoints_steps=500

google-research/bert's flag names. Re-running the same command resumes from the latest
checkpoint in --output_dir (same step, schedule and data position). Phase 2 (longer sequences)
is the same command with records of the new length, a new --output_dir, and
--init_checkpoint=<phase-1 output_dir>. Multi-host: run the same command on every host with
TF_CONFIG set and --distribution_strategy=multi_worker_mirrored. At the end, --output_dir holds
`bert_model.ckpt` + `bert_config.json` in google's format, which every keras_bert tool and
google-research/bert's scripts read.

`--recipe=budget --budget_hours=H` (or `--budget_tokens=N`) trains for a fixed budget instead of
a step count, with the choices of BUDGET_RECIPE below for a small budget (docs/pretraining.md
has the ablations): the learning rate warms up and decays to zero over the budget spent
(`BudgetSchedule`), masked LM only, masks drawn per batch, no dropout while pretraining (the
saved bert_config.json keeps the model's dropout for fine-tuning). Use it with packed records
(`create_pretraining_data --pack_sequences`). A flag given on the command line wins over the
recipe's value. BERT's recipe (`--recipe=bert`) stays the default.
"""

import dataclasses
import os

from absl import app
from absl import flags
from absl import logging

from keras_bert.atomic_files import atomic_open
from keras_bert.cli.common import finetuning_flags
from keras_bert.cli.common import precision_flags
from keras_bert.cli.common import runtime_flags
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS

flags.DEFINE_string("input_file", None, "Pretraining TFRecords: comma-separated paths or globs.")
flags.DEFINE_string("bert_config_file", None, "bert_config.json of the model to train (default: "
                    "the one an --init_checkpoint folder carries, google or Hugging Face).")
flags.DEFINE_string("init_checkpoint", None, "Warm start: TF1, HF, or keras_bert checkpoint/dir.")
flags.DEFINE_string("output_dir", None, "Checkpoints, logs, summaries and the final model.")
flags.DEFINE_integer("max_seq_length", 128, "Sequence length of the records.")
flags.DEFINE_integer("max_predictions_per_seq", 20, "Masked-LM predictions per record.")
flags.DEFINE_integer("train_batch_size", 32, "Global batch size per optimizer step.")
flags.DEFINE_integer("num_train_steps", 100000, "Number of optimizer steps.")
flags.DEFINE_integer("num_warmup_steps", 10000, "Linear warmup steps.")
flags.DEFINE_float("learning_rate", 5e-5, "Peak learning rate.")
flags.DEFINE_integer("save_checkpoints_steps", 1000, "Checkpoint every this many steps.")
flags.DEFINE_bool("do_train", True, "Train (resuming from --output_dir's latest checkpoint).")
flags.DEFINE_bool("do_eval", False, "Evaluate masked-LM / NSP loss and accuracy after training.")
flags.DEFINE_string("eval_input_file", None, "Evaluation TFRecords (default: --input_file).")
flags.DEFINE_integer("eval_batch_size", 8, "Global evaluation batch size.")
flags.DEFINE_integer("max_eval_steps", 100, "Maximum evaluation batches.")
flags.DEFINE_integer("iterations_per_loop", 10, "Steps per compiled loop (between log lines).")
runtime_flags.define_flags(
    ["one_device", "mirrored", "multi_worker_mirrored", "tpu"], 0,
    "initialization, data order and dynamic masks",
)
flags.adopt_module_key_flags(runtime_flags)  # listed by --help with this tool's own flags
precision_flags.define_flags()
# The name this flag had before --dtype_policy (the README showed it): scripts keep working.
flags.DEFINE_alias("mixed_precision", "dtype_policy")
flags.DEFINE_enum("optimizer", "adamw", ["adamw", "lamb"], "AdamW (BERT) or LAMB (large batch).")
flags.DEFINE_float("weight_decay_rate", 0.01, "Decoupled weight decay (not on LayerNorm/bias).")
flags.DEFINE_integer("gradient_accumulation_steps", 1, "Micro-batches per optimizer step.")
flags.DEFINE_bool("dynamic_masking", False, "Draw new masks every batch (RoBERTa) from --vocab_file.")
flags.DEFINE_string("vocab_file", None, "vocab.txt, needed with --dynamic_masking.")
flags.DEFINE_enum(
    "objective", "mlm", ["mlm", "causal_lm", "bidirectional_lm"],
    "mlm: BERT's masked LM. causal_lm: next-token prediction with causal attention (GPT). "
    "bidirectional_lm: next-token prediction, unmasked inputs, bidirectional attention that "
    "hides only the target's own key (it leaks through a second layer: the see-itself problem).",
)
flags.DEFINE_float(
    "masked_lm_prob", 0.15, "With --dynamic_masking: fraction of tokens selected for prediction."
)
flags.DEFINE_float(
    "mask_token_rate", 0.8, "With --dynamic_masking: of the selected tokens, the fraction set to [MASK]."
)
flags.DEFINE_float(
    "random_token_rate", 0.1,
    "With --dynamic_masking: of the selected tokens, the fraction set to a random token (the "
    "rest stay unchanged).",
)
flags.DEFINE_float(
    "nsp_loss_weight", 1.0, "Weight of the next-sentence loss (0: train the token objective alone)."
)
flags.DEFINE_enum(
    "recipe", "bert", ["bert", "budget"],
    "bert: google-research/bert's step schedule and objectives. budget: a fixed --budget_hours "
    "or --budget_tokens, with the small-budget choices of BUDGET_RECIPE.",
)
flags.DEFINE_float("budget_hours", None, "--recipe=budget: hours of training (wall clock).")
flags.DEFINE_float("budget_tokens", None, "--recipe=budget: input tokens to train on.")
flags.DEFINE_float(
    "warmup_fraction", 0.1, "--recipe=budget: share of the budget spent warming up the rate."
)
flags.DEFINE_float(
    "pretraining_dropout", None,
    "Both dropout rates while pretraining (default: the model's own; --recipe=budget: 0). The "
    "saved bert_config.json keeps the model's own rates for fine-tuning.",
)

# --recipe=budget's values for flags the command line leaves unset.
BUDGET_RECIPE = {
    "nsp_loss_weight": 0.0,  # NSP costs steps and did not help (RoBERTa; Cramming)
    "dynamic_masking": True,  # new masks each batch: no dupe_factor copies to store
    "masked_lm_prob": 0.3,  # 30 and 40 % beat 15 % at equal budget (docs/pretraining.md)
    "pretraining_dropout": 0.0,  # one pass over the data: nothing to regularise (Cramming)
}


def apply_recipe():
    """Sets --recipe=budget's values on the flags the command line did not give, and checks the
    budget flags. Returns the `Budget` (`None` for --recipe=bert)."""
    from keras_bert.training.budget_schedule import Budget

    given = [name for name in ("budget_hours", "budget_tokens") if FLAGS[name].value is not None]
    if FLAGS.recipe == "bert":
        if given:
            raise ValueError(f"--{given[0]} needs --recipe=budget.")
        return None
    if len(given) != 1:
        raise ValueError(
            "--recipe=budget needs one budget: --budget_hours=H (wall clock) or --budget_tokens=N.")
    for name, value in BUDGET_RECIPE.items():
        if not FLAGS[name].present:
            FLAGS[name].value = value
    if FLAGS.budget_hours is not None:
        return Budget(FLAGS.budget_hours * 3600.0, "seconds")
    return Budget(FLAGS.budget_tokens, "tokens")


def main(argv):
    from keras_bert.training.tf_distribute import jit_compile_under

    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    logging.set_verbosity(logging.WARNING)  # TF's per-checkpoint INFO lines would break the bar
    devices = runtime_flags.split_cpu()  # first: before anything touches TensorFlow's devices
    budget, config, files, eval_files = _check_flags()
    policy, masker = _masker(config)
    strategy = runtime_flags.strategy(devices)
    dtype_policy, jit_compile = precision_flags.apply()
    jit_compile = jit_compile_under(strategy, jit_compile, FLAGS.jit_compile)
    # --pretraining_dropout (the budget recipe: 0) while training; bert_config.json keeps the
    # model's own rates. Scoring alone builds the model without dropout (it is off in evaluation),
    # so a run trained with any rate can be restored.
    dropout = FLAGS.pretraining_dropout if FLAGS.do_train else 0.0
    model, optimizer = _model(config, strategy, budget, dropout, dtype_policy)
    trainer = _trainer(model, optimizer, strategy, budget, jit_compile)
    resumed = _check_run_dir(config)
    if trainer.chief and FLAGS.do_train:  # scoring alone leaves the run's own records as they are
        _record_run(config, policy, budget, dropout)
    _warm_start(model, resumed)
    if FLAGS.do_train:
        _train(trainer, config, files, masker, resumed)
    elif resumed:
        trainer.restore(weights_only=True)
    if FLAGS.do_eval:
        _evaluate(trainer, eval_files, masker)


def _check_flags():
    """Applies --recipe and checks the flags and the records they name against each other.
    Returns `(budget, config, files, eval_files)`: the recipe's `Budget` (or None), the
    `BertConfig`, and the training and evaluation TFRecord files."""
    finetuning_flags.check_paths()  # --output_dir, --bert_config_file, --init_checkpoint, ...
    _check_ranges()  # both before TensorFlow is imported
    from keras_bert.data.pretraining.dataset import expand_input_files
    from keras_bert.data.pretraining.records import check_pretraining_records

    try:
        budget = apply_recipe()
        if FLAGS.pretraining_dropout is not None and not 0.0 <= FLAGS.pretraining_dropout < 1.0:
            raise ValueError(f"--pretraining_dropout={FLAGS.pretraining_dropout:g}: a rate in "
                             "[0, 1) (0 turns dropout off).")
        config = finetuning_flags.bert_config()  # also checks --max_seq_length against it
        files = expand_input_files(FLAGS.input_file)
        next_sentence = check_pretraining_records(
            files, FLAGS.max_seq_length, FLAGS.max_predictions_per_seq)
        if not next_sentence and FLAGS.nsp_loss_weight:
            raise ValueError(
                f"{files[0]} holds packed rows without next-sentence labels: pass "
                "--nsp_loss_weight=0 (or --recipe=budget), or records of sentence pairs."
            )
        eval_files = expand_input_files(FLAGS.eval_input_file) if FLAGS.eval_input_file else files
        if FLAGS.do_eval:
            check_pretraining_records(eval_files, FLAGS.max_seq_length, FLAGS.max_predictions_per_seq)
        if not (FLAGS.do_train or FLAGS.do_eval):
            raise ValueError("Nothing to do: pass --do_train and/or --do_eval.")
    except (ValueError, FileNotFoundError) as e:
        raise usage.flag_error(e) from None
    _check_token_ids(config, files + (eval_files if FLAGS.do_eval and eval_files is not files
                                      else []))
    return budget, config, files, eval_files


# Flag -> the least value it takes (whole numbers).
_AT_LEAST = {"train_batch_size": 1, "eval_batch_size": 1, "num_train_steps": 1,
             "num_warmup_steps": 0, "save_checkpoints_steps": 1, "iterations_per_loop": 1,
             "max_eval_steps": 1, "gradient_accumulation_steps": 1, "max_seq_length": 1,
             "max_predictions_per_seq": 1}


def _check_ranges():
    """Sizes, counts and rates out of range, before anything is built or written."""
    import math

    for name, least in _AT_LEAST.items():
        if FLAGS[name].value < least:
            raise app.UsageError(f"--{name}={FLAGS[name].value}: it must be a whole number "
                                 f">= {least}.")
    if not (FLAGS.learning_rate >= 0 and math.isfinite(FLAGS.learning_rate)):
        raise app.UsageError(f"--learning_rate={FLAGS.learning_rate:g}: it must be >= 0 (BERT "
                             "pretrains with 1e-4).")
    if not 0.0 <= FLAGS.weight_decay_rate < 1.0:
        raise app.UsageError(f"--weight_decay_rate={FLAGS.weight_decay_rate:g}: it must be in "
                             "[0, 1).")


def _check_token_ids(config, files):
    """The records' token ids (of their first records) fit the model's vocabulary: records of
    a larger vocabulary fail deep in the first training step (or, on a GPU, train on zeros)."""
    from keras_bert.data.pretraining.records import max_token_id

    largest, path = max_token_id(files)
    if largest >= config.vocab_size:
        source = (f"--bert_config_file {FLAGS.bert_config_file}" if FLAGS.bert_config_file
                  else f"the config of --init_checkpoint {FLAGS.init_checkpoint}")
        raise app.UsageError(
            f"--input_file {path} holds token id {largest}, but the model has vocab_size="
            f"{config.vocab_size} ({source}): the records were made with a vocabulary of at "
            f"least {largest + 1} tokens. Pass a --bert_config_file whose vocab_size is the "
            "size of the vocab.txt the records were made with, or re-create the records with "
            "the model's vocab.txt (create_pretraining_data --vocab_file).")


def _masker(config):
    """The objective's targets. Returns `(policy, masker)`: the --masked_lm_prob / rates
    `MaskingPolicy`, and what draws the targets of each batch: next-token targets for the
    next-token objectives, a `DynamicMasker` with --dynamic_masking (its --vocab_file the size
    of `config`'s vocabulary), else None (the records' stored masks)."""
    from keras_bert.data.pretraining.dynamic_masking import DynamicMasker
    from keras_bert.data.pretraining.masking import MaskingPolicy
    from keras_bert.data.pretraining.next_token_targets import NextTokenTargets
    from keras_bert.tokenization.vocab import load_vocabulary

    try:
        policy = MaskingPolicy(
            masked_lm_prob=FLAGS.masked_lm_prob,
            max_predictions_per_seq=FLAGS.max_predictions_per_seq,
            mask_token_rate=FLAGS.mask_token_rate,
            random_token_rate=FLAGS.random_token_rate,
        )
        masking_flags = ("masked_lm_prob", "mask_token_rate", "random_token_rate")
        changed = [f"--{name}" for name in masking_flags if FLAGS[name].present]
        if FLAGS.objective != "mlm":
            if FLAGS.dynamic_masking or changed:
                raise ValueError(
                    f"--objective={FLAGS.objective} predicts every next token of unmasked text; "
                    f"{', '.join(changed) or '--dynamic_masking'} only applies to --objective=mlm."
                )
            return policy, NextTokenTargets()
        if FLAGS.dynamic_masking:
            if not FLAGS.vocab_file:
                raise ValueError("--dynamic_masking needs --vocab_file.")
            vocabulary = load_vocabulary(FLAGS.vocab_file)
            if len(vocabulary) > config.vocab_size:
                raise ValueError(
                    f"--vocab_file {FLAGS.vocab_file} has {len(vocabulary)} tokens, but the "
                    f"model has vocab_size={config.vocab_size}: --dynamic_masking would draw "
                    "ids past its embeddings. Pass the vocab.txt of the model's vocabulary.")
            return policy, DynamicMasker(vocabulary, policy, seed=FLAGS.random_seed)
        if changed:
            raise ValueError(
                f"{', '.join(changed)} set the masks drawn during training, with "
                "--dynamic_masking --vocab_file=...; without it the records' stored masks are "
                "used (set the rates when creating them: create_pretraining_data has the same flags)."
            )
    except (ValueError, FileNotFoundError) as e:
        raise usage.flag_error(e) from None
    return policy, None


def _model(config, strategy, budget, dropout, dtype_policy):
    """The `BertPretrainer` for --objective and its optimizer, built in `strategy`'s scope with
    `dropout` (None: the config's rates). Returns `(model, optimizer)`."""
    import keras

    from keras_bert.models.bert_encoder import BertEncoder
    from keras_bert.models.bert_pretrainer import BertPretrainer
    from keras_bert.training.budget_schedule import BudgetSchedule
    from keras_bert.training.optimizer import create_optimizer
    from keras_bert.training.pretraining_objective import PRETRAINING_OBJECTIVES

    keras.utils.set_random_seed(FLAGS.random_seed)
    train_config = config if dropout is None else dataclasses.replace(
        config, hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout)
    with strategy.scope():
        model = BertPretrainer(
            BertEncoder.from_bert_config(
                train_config, attention_pattern=PRETRAINING_OBJECTIVES[FLAGS.objective]
            )
        )
        try:
            optimizer = create_optimizer(
                model,
                FLAGS.learning_rate if budget is None else BudgetSchedule(
                    FLAGS.learning_rate, FLAGS.warmup_fraction),
                FLAGS.num_train_steps,
                FLAGS.num_warmup_steps,
                optimizer=FLAGS.optimizer,
                weight_decay_rate=FLAGS.weight_decay_rate,
            )
        except ValueError as e:
            raise app.UsageError(f"{e} (--num_train_steps / --num_warmup_steps)") from None
        if dtype_policy == "mixed_float16":
            optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
    return model, optimizer


def _trainer(model, optimizer, strategy, budget, jit_compile):
    """The `PretrainingTrainer` of --output_dir (checkpoints, logs, the step and budget)."""
    from keras_bert.training.pretraining_trainer import PretrainingTrainer

    try:
        return PretrainingTrainer(
            model,
            optimizer,
            strategy,
            FLAGS.output_dir,
            FLAGS.train_batch_size,
            gradient_accumulation_steps=FLAGS.gradient_accumulation_steps,
            save_checkpoints_steps=FLAGS.save_checkpoints_steps,
            steps_per_loop=FLAGS.iterations_per_loop,
            nsp_loss_weight=FLAGS.nsp_loss_weight,
            jit_compile=jit_compile,
            budget=budget,
        )
    except ValueError as e:
        raise usage.flag_error(e) from None


def _check_run_dir(config):
    """Checks that --output_dir holds no run of another model; returns its latest checkpoint
    (None: a new run)."""
    import tensorflow as tf

    from keras_bert.models.bert_config import BertConfig

    resumed = tf.train.latest_checkpoint(FLAGS.output_dir)
    config_path = os.path.join(FLAGS.output_dir, "bert_config.json")
    if os.path.exists(config_path) and BertConfig.from_json_file(config_path) != config:
        raise app.UsageError(
            f"--output_dir {FLAGS.output_dir} holds a run of another model ({config_path} differs "
            "from --bert_config_file). Use a new --output_dir, or the run's own config."
        )
    return resumed


def _record_run(config, policy, budget, dropout):
    """Writes the run's bert_config.json and its objective (masking, recipe, budget, dropout)
    into --output_dir."""
    from keras_bert.training.pretraining_objective import write_pretraining_objective

    os.makedirs(FLAGS.output_dir, exist_ok=True)
    config.to_json_file(os.path.join(FLAGS.output_dir, "bert_config.json"))
    write_pretraining_objective(
        FLAGS.output_dir,
        FLAGS.objective,
        **(
            {"dynamic_masking": FLAGS.dynamic_masking, **dataclasses.asdict(policy)}
            if FLAGS.objective == "mlm"
            else {}
        ),
        nsp_loss_weight=FLAGS.nsp_loss_weight,
        recipe=FLAGS.recipe,
        **({"budget": dataclasses.asdict(budget), "warmup_fraction": FLAGS.warmup_fraction}
           if budget else {}),
        **({"pretraining_dropout": dropout} if dropout is not None else {}),
    )


def _warm_start(model, resumed):
    """Loads --init_checkpoint into `model` unless the run resumes from its own checkpoint;
    scoring alone needs one of the two."""
    from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint

    if not FLAGS.do_train and not resumed and not FLAGS.init_checkpoint:
        raise app.UsageError(
            f"--do_eval without training needs weights: {FLAGS.output_dir} has no checkpoint and "
            "no --init_checkpoint was given."
        )
    if FLAGS.init_checkpoint and not resumed:
        try:
            print("Initialized from", load_init_checkpoint(model, FLAGS.init_checkpoint))
        except (ValueError, FileNotFoundError) as e:
            raise app.UsageError(f"--init_checkpoint: {usage.flag_names(e)}") from None


def _train(trainer, config, files, masker, resumed):
    """Trains on `files` to --num_train_steps or the budget (resuming from `resumed`), then the
    chief saves the model in google's format (bert_model.ckpt, bert_config.json) and
    final_metrics.json."""
    from keras_bert.checkpoints.tf1_checkpoint import save_tf1_checkpoint
    from keras_bert.data.pretraining.dataset import pretraining_dataset

    def dataset_fn(context, batch_size, start_batch):
        return pretraining_dataset(
            files,
            batch_size,
            FLAGS.max_seq_length,
            FLAGS.max_predictions_per_seq,
            is_training=True,
            seed=FLAGS.random_seed,
            input_context=context,
            masker=masker,
            start_batch=start_batch,
        )

    budget = trainer.budget
    print(
        f"Training {config.num_hidden_layers}x{config.hidden_size} BERT on {len(files)} file(s), "
        f"{trainer.strategy.num_replicas_in_sync} replica(s), global batch {FLAGS.train_batch_size}"
        + (f", budget {budget.describe()}" if budget else "")
        + (f", resuming from {resumed}" if resumed else "")
    )
    # A budget ends the run; --num_train_steps only caps it when given.
    steps = FLAGS.num_train_steps if budget is None or FLAGS["num_train_steps"].present else None
    metrics = trainer.train(dataset_fn, steps)
    if trainer.chief:
        save_tf1_checkpoint(trainer.model, os.path.join(FLAGS.output_dir, "bert_model.ckpt"))
        # The model's own dropout (not the training one).
        config.to_json_file(os.path.join(FLAGS.output_dir, "bert_config.json"))
        runtime_flags.write_json(
            "final_metrics.json", {"step": int(trainer.global_step.numpy()), **metrics}
        )
        print("Final:", _shown(metrics.items()))


def _evaluate(trainer, eval_files, masker):
    """Scores masked-LM / NSP (or next-token) loss and accuracy on up to --max_eval_steps
    batches of `eval_files`; the chief writes eval_results.txt and eval_results.json."""
    from keras_bert.data.pretraining.dataset import pretraining_dataset

    def eval_dataset_fn(context, batch_size):
        return pretraining_dataset(
            eval_files, batch_size, FLAGS.max_seq_length, FLAGS.max_predictions_per_seq,
            is_training=False, input_context=context,
            # A next-token run is scored on next-token targets; masked-LM runs on the
            # records' stored masks.
            masker=masker if FLAGS.objective != "mlm" else None,
        )

    try:
        results = trainer.evaluate(eval_dataset_fn, FLAGS.max_eval_steps, FLAGS.eval_batch_size)
    except ValueError as e:
        raise usage.flag_error(e, {"batch_size": "eval_batch_size"}) from None
    results["global_step"] = int(trainer.global_step.numpy())
    if trainer.chief:
        with atomic_open(os.path.join(FLAGS.output_dir, "eval_results.txt")) as f:
            f.write("".join(f"{k} = {v}\n" for k, v in sorted(results.items())))
        runtime_flags.write_json("eval_results.json", results)
    print("Eval:", _shown(sorted(results.items())))


def _shown(items):
    """Metrics as printed: accuracies in percent with 2 decimals (the JSON files keep
    fractions), the rest to 4 significant digits."""
    return ", ".join(f"{k} {100 * v:.2f}%" if k.endswith("accuracy") else f"{k} {v:.4g}"
                     for k, v in items)


if __name__ == "__main__":
    flags.mark_flags_as_required(["input_file", "output_dir"])
    usage.run(main)
