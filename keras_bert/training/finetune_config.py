"""`FinetuneConfig`: the fine-tuning recipe's settings, with the command-line tools' defaults."""

import dataclasses
import math

from keras_bert.api_export import keras_bert_export
from keras_bert.training.precision import DTYPE_POLICIES


@keras_bert_export("keras_bert.training.FinetuneConfig")
@dataclasses.dataclass(frozen=True)
class FinetuneConfig:
    """How to fine-tune: where from, where to, and the optimizer, schedule and precision.

    The fields are google-research/bert's flag names, and their defaults are the flags' defaults
    of `run_classifier`, `run_squad` and `run_ner` (which only translate flags into this). What
    a task encodes (`max_seq_length`, `doc_stride`, ...) belongs to the task, not here.

    Args:
        output_dir: str. Checkpoints (resumable), `best/` (a whole model folder), evaluation
            history and results.
        init_checkpoint: optional str. Weights to start from: a Hugging Face folder, a google
            TF1 checkpoint, a keras_bert run or pretraining run. `None`: random initialization.
        bert_config_file, vocab_file: optional str. Default: the ones `init_checkpoint` carries.
        do_lower_case: bool. Lower-case input (uncased vocabularies). Defaults to True.
        train_batch_size, eval_batch_size: int. Defaults to 32 and 64.
        learning_rate: float. Peak AdamW learning rate. Defaults to 5e-5.
        num_train_epochs: float. Defaults to 3.0 (may be fractional).
        num_train_steps: optional int; overrides `num_train_epochs`.
        warmup_proportion: float in [0, 1). Linear warm-up share. Defaults to 0.1.
        weight_decay_rate: float >= 0. Decoupled weight decay (not LayerNorm/bias). 0.01.
        iterations_per_loop: int. Steps per progress bar and checkpoint. Defaults to 100.
        eval_every_steps: optional int. Evaluate (and keep the best) this often; default: once
            an epoch.
        max_train_examples: optional int. Train on a seeded random subset of this size.
        random_seed: int. The head, dropout and data order. Defaults to 12345.
        dtype_policy: `"auto"`, `"float32"`, `"mixed_bfloat16"` or `"mixed_float16"`.
        jit_compile: optional bool. Default: the faster measured path for the precision.
        overwrite_output_dir: bool. `output_dir` may hold a run of another task, data or
            settings (`run.json` says what made it): delete it and start over. Default False:
            such a folder is refused, and a folder of the same run resumes.
        pad_to_multiple_of: optional int. Round each training batch's length up to a multiple
            of this, so a compiled step sees a handful of shapes. Default: 16 where the step is
            compiled (XLA, and JAX always), else 1 (exact lengths).

    Raises:
        ValueError: a size that is not positive, a rate out of range (the message names the
            field and the range).

    Example:
    >>> config = keras_bert.training.FinetuneConfig("runs/sst2", learning_rate=3e-5)
    >>> config.train_batch_size, config.num_train_steps_for(1000)
    (32, 94)
    """

    output_dir: str
    init_checkpoint: object = None
    bert_config_file: object = None
    vocab_file: object = None
    do_lower_case: bool = True
    train_batch_size: int = 32
    eval_batch_size: int = 64
    learning_rate: float = 5e-5
    num_train_epochs: float = 3.0
    num_train_steps: object = None
    warmup_proportion: float = 0.1
    weight_decay_rate: float = 0.01
    iterations_per_loop: int = 100
    eval_every_steps: object = None
    max_train_examples: object = None
    random_seed: int = 12345
    dtype_policy: str = "auto"
    jit_compile: object = None
    pad_to_multiple_of: object = None
    overwrite_output_dir: bool = False

    def __post_init__(self):
        if not self.output_dir:
            raise ValueError("output_dir is empty: name the folder the run writes to.")
        positive = ("train_batch_size", "eval_batch_size", "iterations_per_loop",
                    "num_train_steps", "eval_every_steps", "max_train_examples",
                    "pad_to_multiple_of")
        for name in positive:
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(f"{name}={value!r}: it must be a whole number >= 1.")
        if not (self.learning_rate >= 0 and math.isfinite(self.learning_rate)):
            raise ValueError(f"learning_rate={self.learning_rate}: it must be >= 0 (BERT "
                             "fine-tunes with 2e-5 to 1e-4; 0 leaves the weights as they are).")
        if not (self.num_train_epochs > 0 and math.isfinite(self.num_train_epochs)):
            raise ValueError(f"num_train_epochs={self.num_train_epochs}: it must be > 0.")
        if not 0.0 <= self.warmup_proportion < 1.0:
            raise ValueError(f"warmup_proportion={self.warmup_proportion}: it must be in [0, 1).")
        if not 0.0 <= self.weight_decay_rate < 1.0:
            raise ValueError(f"weight_decay_rate={self.weight_decay_rate}: it must be in [0, 1).")
        if self.dtype_policy not in DTYPE_POLICIES:
            raise ValueError(f"dtype_policy={self.dtype_policy!r}: use one of "
                             f"{', '.join(DTYPE_POLICIES)}.")

    def num_train_steps_for(self, num_examples):
        """Optimizer steps for `num_examples` training examples: `num_train_steps`, else epochs
        x examples / batch, rounded up. Batches are whole, so one batch of examples at least."""
        if num_examples < self.train_batch_size:
            raise ValueError(
                f"{num_examples} training examples are fewer than one batch of "
                f"train_batch_size={self.train_batch_size}: lower it or add data.")
        if self.num_train_steps:
            return self.num_train_steps
        return max(1, math.ceil(self.num_train_epochs * num_examples / self.train_batch_size))

    def steps_per_epoch(self, num_examples):
        """Whole batches in one pass over `num_examples`."""
        return max(1, num_examples // self.train_batch_size)
