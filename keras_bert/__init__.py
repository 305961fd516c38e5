"""keras_bert: exact BERT for Keras 3, on TensorFlow, JAX or PyTorch.

Public names load on first use (keras_bert/lazy_package.py): `import keras_bert` imports
neither Keras nor TensorFlow, so the command-line tools answer `--help` at once; importing
Keras imports the rest, registering every Keras class for `.keras` loading.
"""

from keras_bert.export_package import register_source_export
from keras_bert.lazy_package import lazy_exports
from keras_bert.lazy_package import register_after_keras
from keras_bert.tensorflow_extra import check_keras_backend
from keras_bert.version import __version__

register_source_export()  # `keras_bert.export` is the top-level export/ folder of a checkout

check_keras_backend()  # before anything imports Keras

_import_all = lazy_exports(
    globals(),
    symbols={
        "encoder_from_hf_checkpoint": "keras_bert.checkpoints",
        "encoder_from_keras_hub": "keras_bert.checkpoints",
        "BertClassifier": "keras_bert.models.bert_classifier",
        "BertConfig": "keras_bert.models.bert_config",
        "BertEncoder": "keras_bert.models.bert_encoder",
        "BertFeatureExtractor": "keras_bert.models.bert_feature_extractor",
        "BertPretrainer": "keras_bert.models.bert_pretrainer",
        "BertQuestionAnswerer": "keras_bert.models.bert_question_answerer",
        "BertSentenceEmbedder": "keras_bert.models.bert_sentence_embedder",
        "BertTokenClassifier": "keras_bert.models.bert_token_classifier",
        "select_layers": "keras_bert.models.layer_selection",
        "QuestionAnsweringPipeline": "keras_bert.pipelines.question_answering_pipeline",
        "DocumentQuestionAnsweringPipeline": (
            "keras_bert.pipelines.document_question_answering_pipeline"),
        "encode_texts": "keras_bert.tokenization.packing",
        "pack_segments": "keras_bert.tokenization.packing",
        "ReferenceTokenizer": "keras_bert.tokenization.reference_tokenizer",
        "load_vocabulary": "keras_bert.tokenization.vocab",
        "special_token_ids": "keras_bert.tokenization.vocab",
        "write_vocabulary": "keras_bert.tokenization.vocab",
    },
    submodules=(
        "analysis", "checkpoints", "data", "layers", "metrics", "pipelines", "retrieval", "tasks",
        "training",
    ),
    # TensorFlow-only: a one-line install hint on use where TensorFlow is missing.
    tensorflow_symbols={
        "encoder_from_tf1_checkpoint": "keras_bert.checkpoints.tf1_checkpoint",
        "BertPreprocessor": "keras_bert.tokenization.bert_preprocessor",
        "BertTokenizer": "keras_bert.tokenization.bert_tokenizer",
        "BertPacker": "keras_bert.tokenization.tf_packing",
        "learn_vocabulary": "keras_bert.tokenization.vocab_learning",
    },
)
register_after_keras(_import_all)
