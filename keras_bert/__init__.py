"""keras_bert: exact BERT for Keras 3, on TensorFlow, JAX or PyTorch."""

from keras_bert.tensorflow_extra import check_keras_backend

check_keras_backend()  # before anything imports Keras

from keras_bert import analysis
from keras_bert import checkpoints
from keras_bert import data
from keras_bert import layers
from keras_bert import metrics
from keras_bert import pipelines
from keras_bert import tasks
from keras_bert import training
from keras_bert.checkpoints import encoder_from_hf_checkpoint
from keras_bert.checkpoints import encoder_from_keras_hub
from keras_bert.models.bert_classifier import BertClassifier
from keras_bert.models.bert_config import BertConfig
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_feature_extractor import BertFeatureExtractor
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.bert_question_answerer import BertQuestionAnswerer
from keras_bert.models.bert_token_classifier import BertTokenClassifier
from keras_bert.models.layer_selection import select_layers
from keras_bert.pipelines.question_answering_pipeline import QuestionAnsweringPipeline
from keras_bert.tensorflow_extra import export_tensorflow_symbols
from keras_bert.tokenization.packing import encode_texts
from keras_bert.tokenization.packing import pack_segments
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from keras_bert.tokenization.vocab import load_vocabulary
from keras_bert.tokenization.vocab import special_token_ids
from keras_bert.tokenization.vocab import write_vocabulary
from keras_bert.version import __version__

# TensorFlow-only: imported now where TensorFlow is installed, else a one-line install hint on use.
export_tensorflow_symbols(globals(), {
    "encoder_from_tf1_checkpoint": "keras_bert.checkpoints.tf1_checkpoint",
    "BertPreprocessor": "keras_bert.tokenization.bert_preprocessor",
    "BertTokenizer": "keras_bert.tokenization.bert_tokenizer",
    "BertPacker": "keras_bert.tokenization.tf_packing",
    "learn_vocabulary": "keras_bert.tokenization.vocab_learning",
})
