"""keras_bert.metrics: task metrics with their official definitions (SQuAD, GLUE, conlleval)."""

from keras_bert.metrics.classification_metrics import classification_metrics
from keras_bert.metrics.conlleval import conlleval
from keras_bert.metrics.squad_evaluation import evaluate_squad_file
from keras_bert.metrics.squad_evaluation import evaluate_squad_v1
from keras_bert.metrics.squad_evaluation import evaluate_squad_v2
from keras_bert.metrics.squad_evaluation import normalize_answer
