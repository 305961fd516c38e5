"""keras_bert: exact BERT for TensorFlow / Keras 3."""

from keras_bert import checkpoints
from keras_bert import layers
from keras_bert.checkpoints import encoder_from_hf_checkpoint
from keras_bert.checkpoints import encoder_from_keras_hub
from keras_bert.checkpoints import encoder_from_tf1_checkpoint
from keras_bert.models.bert_classifier import BertClassifier
from keras_bert.models.bert_config import BertConfig
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.bert_question_answerer import BertQuestionAnswerer
from keras_bert.models.bert_token_classifier import BertTokenClassifier
from keras_bert.version import __version__
