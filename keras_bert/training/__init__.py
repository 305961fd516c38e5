"""keras_bert.training: optimizers, schedules, losses, tf.distribute strategies and training loops."""

from keras_bert.tensorflow_extra import export_tensorflow_symbols
from keras_bert.training.budget_schedule import Budget
from keras_bert.training.budget_schedule import BudgetSchedule
from keras_bert.training.distillation import mix_targets
from keras_bert.training.distillation import teacher_probabilities
from keras_bert.training.keras_distribution import data_parallel
from keras_bert.training.keras_distribution import model_parallel
from keras_bert.training.finetune_config import FinetuneConfig
from keras_bert.training.finetuner import Finetuner
from keras_bert.training.optimizer import create_optimizer
from keras_bert.training.precision import default_jit_compile
from keras_bert.training.precision import describe_machine
from keras_bert.training.precision import resolve_dtype_policy
from keras_bert.training.precision import set_dtype_policy
from keras_bert.training.recipe import FinetuneResult
from keras_bert.training.recipe import apply_precision
from keras_bert.training.recipe import build_task_model
from keras_bert.training.recipe import finetune
from keras_bert.training.recipe import load_bert_config
from keras_bert.training.recipe import load_tokenizer
from keras_bert.training.recipe import training_data
from keras_bert.training.warmup_linear_decay import WarmupLinearDecay

# TensorFlow-only: imported now where TensorFlow is installed, else a one-line install hint on use.
export_tensorflow_symbols(globals(), {
    "get_distribution_strategy": "keras_bert.training.tf_distribute",
    "PretrainingTrainer": "keras_bert.training.pretraining_trainer",
})
