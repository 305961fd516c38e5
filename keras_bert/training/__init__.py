"""keras_bert.training: optimizers, schedules, losses, tf.distribute strategies and training loops."""

from keras_bert.training.distribute import get_distribution_strategy
from keras_bert.training.finetuner import Finetuner
from keras_bert.training.optimizer import create_optimizer
from keras_bert.training.precision import default_jit_compile
from keras_bert.training.precision import describe_machine
from keras_bert.training.precision import resolve_dtype_policy
from keras_bert.training.precision import set_dtype_policy
from keras_bert.training.pretraining_trainer import PretrainingTrainer
from keras_bert.training.warmup_linear_decay import WarmupLinearDecay
