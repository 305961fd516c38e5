"""keras_bert.training: optimizers, schedules, losses, tf.distribute strategies and training loops."""

from keras_bert.training.distribute import get_distribution_strategy
from keras_bert.training.finetuner import Finetuner
from keras_bert.training.optimizer import create_optimizer
from keras_bert.training.pretraining_trainer import PretrainingTrainer
from keras_bert.training.warmup_linear_decay import WarmupLinearDecay
