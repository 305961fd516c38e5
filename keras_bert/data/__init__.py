"""keras_bert.data: the shared batching and file helpers here; pretraining data (corpora, NSP
instances, MLM masking, TFRecords) in `pretraining/`; fine-tuning task data (SQuAD, CoNLL-2003,
GLUE) in `tasks/`. Every public name is re-exported here."""

from keras_bert.data.data_files import find_data_file
from keras_bert.data.data_files import open_data_file
from keras_bert.data.length_grouping import LengthGroupedBatches
from keras_bert.data.pretraining.corpus_sources import CorpusSummary
from keras_bert.data.pretraining.corpus_sources import build_corpus
from keras_bert.data.pretraining.instances import TrainingInstance
from keras_bert.data.pretraining.instances import create_packed_instances
from keras_bert.data.pretraining.instances import create_training_instances
from keras_bert.data.pretraining.instances import pack_pretraining_instances
from keras_bert.data.pretraining.masking import MaskingPolicy
from keras_bert.data.pretraining.masking import TokenMasker
from keras_bert.data.pretraining.text_to_documents import text_to_documents
from keras_bert.data.pretraining.word_order import shuffle_word_order
from keras_bert.data.tasks.classification_data import GLUE_TASKS
from keras_bert.data.tasks.classification_data import read_classification_examples
from keras_bert.data.tasks.conll_ner import CONLL2003_LABELS
from keras_bert.data.tasks.conll_ner import convert_ner_sentences
from keras_bert.data.tasks.conll_ner import read_conll
from keras_bert.data.tasks.conll_ner import word_predictions
from keras_bert.data.tasks.squad_article_negatives import with_article_negatives
from keras_bert.data.tasks.squad_examples import read_squad_examples
from keras_bert.data.tasks.squad_examples import squad_examples_from_dataset
from keras_bert.data.tasks.squad_features import convert_squad_examples
from keras_bert.data.tasks.squad_predictions import answer_char_span
from keras_bert.data.tasks.squad_predictions import decode_squad_predictions
from keras_bert.data.tasks.squad_predictions import project_to_original_text
from keras_bert.tensorflow_extra import export_tensorflow_symbols

# TensorFlow-only: imported now where TensorFlow is installed, else a one-line install hint on use.
export_tensorflow_symbols(globals(), {
    "trim_batch_padding": "keras_bert.data.batch_trimming",
    "tokenize_documents": "keras_bert.data.pretraining.documents",
    "DynamicMasker": "keras_bert.data.pretraining.dynamic_masking",
    "length_grouped_dataset": "keras_bert.data.tf_length_grouping",
    "NextTokenTargets": "keras_bert.data.pretraining.next_token_targets",
    "pretraining_dataset": "keras_bert.data.pretraining.dataset",
    "check_pretraining_records": "keras_bert.data.pretraining.records",
    "write_pretraining_records": "keras_bert.data.pretraining.records",
})
