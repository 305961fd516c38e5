"""keras_bert.tasks: one module per fine-tuning task (files, encoding, model, loss, decoding, scoring)."""

from keras_bert.tasks.question_answering import QuestionAnsweringTask
from keras_bert.tasks.registry import get_task
from keras_bert.tasks.registry import task_for_model
from keras_bert.tasks.registry import task_names
from keras_bert.tasks.sentence_classification import SentenceClassificationTask
from keras_bert.tasks.task import Task
from keras_bert.tasks.task import TaskData
from keras_bert.tasks.token_classification import TokenClassificationTask
