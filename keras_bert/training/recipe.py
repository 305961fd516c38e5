"""`finetune`: the fine-tuning recipe as one function, on any Keras backend."""

import contextlib
import dataclasses
import os
import warnings

import keras

from keras_bert.api_export import keras_bert_export
from keras_bert.training.finetune_config import FinetuneConfig  # noqa: F401 (documented type)


@dataclasses.dataclass
class FinetuneResult:
    """What `finetune` returns.

    Attributes:
        model: the task model, holding the best checkpoint's weights.
        tokenizer: the `ReferenceTokenizer` the data was encoded with.
        metrics: dict, the best evaluation (or the final training logs without evaluation).
        output_dir: str; `output_dir/best` is a whole model folder (`init_checkpoint` reads it).
        train_data, eval_data: the `TaskData` trained and evaluated on.
    """

    model: object
    tokenizer: object
    metrics: dict
    output_dir: str
    train_data: object = None
    eval_data: object = None


@keras_bert_export("keras_bert.training.load_bert_config")
def load_bert_config(config, max_seq_length=None):
    """The `BertConfig` of a `FinetuneConfig`: `bert_config_file`, else the one
    `init_checkpoint` carries. Checks `max_seq_length` against its positions."""
    from keras_bert.checkpoints.run_folder import model_config
    from keras_bert.models.bert_config import BertConfig

    if config.bert_config_file:
        bert_config = BertConfig.from_json_file(config.bert_config_file)
    elif config.init_checkpoint:
        if not os.path.exists(config.init_checkpoint) and not os.path.exists(
                config.init_checkpoint + ".index"):
            raise FileNotFoundError(f"`init_checkpoint` {config.init_checkpoint} does not exist.")
        bert_config = model_config(config.init_checkpoint)
    else:
        raise ValueError("No model config: give bert_config_file, or an init_checkpoint folder "
                         "with bert_config.json (google/keras_bert) or config.json (Hugging Face).")
    if max_seq_length and max_seq_length > bert_config.max_position_embeddings:
        raise ValueError(f"max_seq_length={max_seq_length} exceeds the model's "
                         f"max_position_embeddings={bert_config.max_position_embeddings}.")
    return bert_config


@keras_bert_export("keras_bert.training.load_tokenizer")
def load_tokenizer(config):
    """The `ReferenceTokenizer` of a `FinetuneConfig`: `vocab_file`, else the vocab.txt next to
    `init_checkpoint`."""
    from keras_bert.checkpoints import run_folder
    from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer

    path = config.vocab_file
    if not path and config.init_checkpoint:
        candidate = os.path.join(run_folder.model_folder(config.init_checkpoint),
                                 run_folder.VOCAB_FILE)
        path = candidate if os.path.exists(candidate) else None
    if not path:
        raise ValueError("No vocabulary: give vocab_file (the vocab.txt of the checkpoint), or "
                         "an init_checkpoint folder that has vocab.txt.")
    return ReferenceTokenizer(path, do_lower_case=config.do_lower_case)


@keras_bert_export("keras_bert.training.apply_precision")
def apply_precision(config, log=print):
    """Sets Keras's dtype policy from `config.dtype_policy` (before building models); returns
    `(policy, jit_compile)`, the XLA choice being the faster measured path unless set."""
    from keras_bert.training.precision import default_jit_compile
    from keras_bert.training.precision import set_dtype_policy

    policy = set_dtype_policy(config.dtype_policy, log=log)
    jit_compile = config.jit_compile
    if jit_compile is None:
        # On PyTorch Keras's jit_compile is torch.compile, which recompiles for every batch
        # length: 20 s a step on a tiny model where eager takes milliseconds (measured).
        jit_compile = keras.config.backend() != "torch" and default_jit_compile(policy)
    return policy, jit_compile


def has_training_state(output_dir):
    """Whether `output_dir` holds a training checkpoint to resume from."""
    from keras_bert.checkpoints import run_folder
    from keras_bert.training.training_state import latest_training_state

    return latest_training_state(run_folder.training_checkpoints_dir(output_dir)) is not None


def _scope(strategy):
    return strategy.scope() if strategy is not None else contextlib.nullcontext()


@keras_bert_export("keras_bert.training.build_task_model")
def build_task_model(task, config, bert_config=None, strategy=None, log=print):
    """`task`'s model, seeded with `config.random_seed` and warm-started from
    `config.init_checkpoint` (unless `output_dir` holds a training checkpoint to resume)."""
    from keras_bert.checkpoints.init_checkpoint import load_init_checkpoint
    from keras_bert.models.bert_encoder import BertEncoder

    bert_config = bert_config or load_bert_config(config, task.max_seq_length)
    keras.utils.set_random_seed(config.random_seed)
    with _scope(strategy):
        model = task.build_model(BertEncoder.from_bert_config(bert_config))
    if has_training_state(config.output_dir):
        log(f"Resuming from the training checkpoint in {config.output_dir} "
            "(init_checkpoint is not read).")
    elif config.init_checkpoint:
        log("Initialized from", load_init_checkpoint(model, config.init_checkpoint))
    else:
        log("No init_checkpoint: training from random initialization.")
    return model


@keras_bert_export("keras_bert.training.training_data")
def training_data(task, config, tokenizer, examples, log=print, path=None):
    """The `TaskData` the recipe trains on: a seeded `config.max_train_examples` subset of
    `examples` (all of them by default), in file order, encoded for training."""
    from keras_bert.data.seeded_subset import seeded_subset

    examples = task.subset(examples, seeded_subset(
        len(examples), config.max_train_examples, config.random_seed))
    data = task.encode(examples, tokenizer, training=True, path=path)
    for note in data.notes:
        log("Training:", note)
    return data


def _batches(data, targets, config, steps, jit_compile):
    """Length-grouped training batches: tf.data on TensorFlow (tf.distribute and TPUs take
    it), a `PyDataset` elsewhere. Both serve the same batches in the same order."""
    pad_to = config.pad_to_multiple_of
    if pad_to is None:  # compiled: a handful of lengths, each compiled once
        pad_to = 16 if jit_compile or keras.config.backend() == "jax" else 1
    if keras.config.backend() == "tensorflow":
        from keras_bert.data.tf_length_grouping import length_grouped_dataset

        return length_grouped_dataset(data.inputs, targets, config.train_batch_size, steps,
                                      config.random_seed, pad_to_multiple_of=pad_to)
    from keras_bert.data.length_grouping import LengthGroupedBatches

    return LengthGroupedBatches(data.inputs, targets, config.train_batch_size, steps,
                                config.random_seed, pad_to_multiple_of=pad_to)


@keras_bert_export("keras_bert.training.finetune")
def finetune(task, config, train_file=None, eval_file=None, *, train_data=None, eval_data=None,
             model=None, targets=None, compile_args=None, strategy=None, callbacks=(),
             verbose="auto", log=print):
    """Fine-tunes `task` as `config` says, resumably, and returns the best model.

    The recipe, in order: the precision policy (`dtype_policy`, and XLA where measured
    faster); the training data read, encoded and cut to a seeded `max_train_examples` subset;
    the model seeded and warm-started from `init_checkpoint` (or resumed from `output_dir`);
    BERT's AdamW with warm-up, linear decay and clipping to global norm 1.0;
    length-grouped batches; evaluation every epoch (or `eval_every_steps`) keeping the best
    checkpoint in `output_dir/best` (with its vocab.txt: a whole model folder); checkpoints
    every `iterations_per_loop` steps, from which the same call resumes exactly (weights,
    optimizer, data position and dropout masks). Runs on TensorFlow, JAX and PyTorch.

    Args:
        task: a `keras_bert.tasks.Task`.
        config: a `FinetuneConfig`.
        train_file, eval_file: paths the task reads. Or, already encoded:
        train_data, eval_data: `TaskData` (`task.load(path, tokenizer, training)`).
        model: optional task model, built and warm-started by the caller (a distillation
            student, say); default: `build_task_model`.
        targets: optional training targets replacing `train_data.targets` (row for row).
        compile_args: optional `model.compile` arguments replacing `task.compile_args()`.
        strategy: optional `tf.distribute.Strategy` (TensorFlow) to build and train under.
        callbacks: more Keras callbacks.
        verbose: `model.fit`'s; "auto" shows a progress bar on a terminal only.
        log: where progress lines go.

    Returns:
        a `FinetuneResult`.

    Example:
    ```python
    task = keras_bert.tasks.get_task("sst-2", max_seq_length=64)
    config = keras_bert.training.FinetuneConfig("runs/sst2", init_checkpoint=minilm_folder)
    result = keras_bert.training.finetune(task, config, "SST-2/train.tsv", "SST-2/dev.tsv")
    result.metrics["accuracy"]
    ```
    """
    from keras_bert.atomic_files import atomic_open
    from keras_bert.checkpoints import run_folder
    from keras_bert.training.finetuner import Finetuner
    from keras_bert.training.optimizer import create_optimizer
    from keras_bert.training.run_record import claim_output_dir
    from keras_bert.training.run_record import run_record

    if train_data is None and train_file is None:
        raise ValueError("Nothing to train on: give train_file (or train_data).")
    _, jit_compile = apply_precision(config, log=log)  # before any model is built
    if strategy is not None:
        from keras_bert.training.tf_distribute import jit_compile_under

        jit_compile = jit_compile_under(strategy, jit_compile, config.jit_compile)
    bert_config = load_bert_config(config, task.max_seq_length)
    # Encoding needs the vocabulary; encoded data does not (best/ then gets no vocab.txt).
    has_vocab = config.vocab_file or (config.init_checkpoint and os.path.exists(os.path.join(
        run_folder.model_folder(config.init_checkpoint), run_folder.VOCAB_FILE)))
    tokenizer = load_tokenizer(config) if has_vocab or train_data is None or (
        eval_data is None and eval_file is not None) else None
    if train_data is None:
        train_data = training_data(task, config, tokenizer, task.read(train_file, training=True),
                                   log, train_file)
    if eval_data is None and eval_file is not None:
        eval_data = task.load(eval_file, tokenizer)
    targets = tuple(targets) if targets is not None else train_data.targets
    claim_output_dir(config.output_dir, run_record(task, config, train_data, targets),
                     config.overwrite_output_dir, log)  # before anything is resumed from it
    if model is None:
        model = build_task_model(task, config, bert_config, strategy, log)
    steps = config.num_train_steps_for(train_data.num_rows)
    if strategy is not None:
        from keras_bert.training.tf_distribute import per_replica_batch_size

        per_replica_batch_size(config.train_batch_size, strategy)
    # Span and token heads do not read pooled_output, so the pooler gets no gradient; expected
    # (google's run_squad leaves it untouched too), not a mistake worth a warning.
    warnings.filterwarnings("ignore", message=r"Gradients do not exist for variables \['pooler/")
    with _scope(strategy):
        optimizer = create_optimizer(
            model, config.learning_rate, steps, int(steps * config.warmup_proportion),
            weight_decay_rate=config.weight_decay_rate, global_clipnorm=1.0)
        model.compile(optimizer=optimizer, jit_compile=jit_compile,
                      **(compile_args or task.compile_args()))
    evaluate_fn = None
    if eval_data is not None:
        def evaluate_fn(m):
            return task.evaluate(m, eval_data, config.eval_batch_size)

    steps_per_epoch = config.steps_per_epoch(train_data.num_rows)
    finetuner = Finetuner(
        model, config.output_dir, steps, min(config.iterations_per_loop, steps_per_epoch),
        evaluate_fn=evaluate_fn, monitor=task.monitor if evaluate_fn else None,
        eval_every_steps=config.eval_every_steps or steps_per_epoch,
        is_chief=_is_chief(strategy), percent_scores=task.percent_scores,
    )
    log(f"Training {bert_config.num_hidden_layers}x{bert_config.hidden_size} BERT on {task.name} for "
        f"{steps} steps ({train_data.num_rows} "
        f"{'examples' if train_data.num_rows == len(train_data.examples) else 'windows'}, "
        f"batch {config.train_batch_size}, "
        f"{keras.config.backend()}); "
        + (f"{task.monitor} every {finetuner.eval_every_steps} steps; " if evaluate_fn else "")
        + f"checkpoints and the best model in {config.output_dir}")
    batches = _batches(train_data, targets, config, steps, jit_compile)
    if finetuner.is_chief and tokenizer is not None:  # best/: a whole model folder
        path = os.path.join(run_folder.best_dir(config.output_dir), run_folder.VOCAB_FILE)
        with atomic_open(path, encoding="utf-8") as f:
            f.writelines(token + "\n" for token in tokenizer.vocabulary)
    metrics = finetuner.fit(batches, verbose=verbose, callbacks=callbacks)
    finetuner.load_best()
    best = finetuner.best_metrics() or metrics or {}
    log(f"Loaded the best checkpoint (step {best.get('step', '?')}).")
    return FinetuneResult(model, tokenizer, best, config.output_dir, train_data, eval_data)


def _is_chief(strategy):
    if strategy is None:
        return True
    from keras_bert.training.pretraining_trainer import is_chief

    return is_chief(strategy)
