"""keras_bert.data: pretraining text, NSP instances, MLM masking, TFRecords; fine-tuning task data."""

from keras_bert.data.batch_trimming import trim_batch_padding
from keras_bert.data.classification_data import GLUE_TASKS
from keras_bert.data.classification_data import read_classification_examples
from keras_bert.data.conll_ner import CONLL2003_LABELS
from keras_bert.data.conll_ner import convert_ner_sentences
from keras_bert.data.conll_ner import read_conll
from keras_bert.data.conll_ner import word_predictions
from keras_bert.data.data_files import find_data_file
from keras_bert.data.data_files import open_data_file
from keras_bert.data.documents import tokenize_documents
from keras_bert.data.dynamic_masking import DynamicMasker
from keras_bert.data.length_batching import length_grouped_dataset
from keras_bert.data.masking import MaskingPolicy
from keras_bert.data.masking import TokenMasker
from keras_bert.data.next_token_targets import NextTokenTargets
from keras_bert.data.pretraining_dataset import pretraining_dataset
from keras_bert.data.pretraining_instances import TrainingInstance
from keras_bert.data.pretraining_instances import create_training_instances
from keras_bert.data.pretraining_records import check_pretraining_records
from keras_bert.data.pretraining_records import write_pretraining_records
from keras_bert.data.squad_examples import read_squad_examples
from keras_bert.data.squad_features import convert_squad_examples
from keras_bert.data.squad_predictions import answer_char_span
from keras_bert.data.squad_predictions import decode_squad_predictions
from keras_bert.data.squad_predictions import project_to_original_text
from keras_bert.data.text_to_documents import text_to_documents
