"""keras_bert.data: pretraining text, NSP instances, MLM masking, TFRecords and tf.data pipelines."""

from keras_bert.data.documents import tokenize_documents
from keras_bert.data.dynamic_masking import DynamicMasker
from keras_bert.data.masking import MaskingPolicy
from keras_bert.data.masking import TokenMasker
from keras_bert.data.pretraining_dataset import pretraining_dataset
from keras_bert.data.pretraining_instances import TrainingInstance
from keras_bert.data.pretraining_instances import create_training_instances
from keras_bert.data.pretraining_records import check_pretraining_records
from keras_bert.data.pretraining_records import write_pretraining_records
from keras_bert.data.text_to_documents import text_to_documents
