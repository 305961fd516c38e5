"""`BertClassifier`: a `BertEncoder` with a classification head on the pooled [CLS] output."""

from keras_bert.api_export import keras_bert_export
from keras_bert.models.classifier_task import ClassifierTask


@keras_bert_export("keras_bert.BertClassifier")
class BertClassifier(ClassifierTask):
    """Sentence (or sentence-pair) classification: dropout + dense on the pooled output.

    Args:
        encoder: a `BertEncoder`.
        num_classes: int. Number of classes.
        dropout: float. Dropout before the classifier. Defaults to 0.1.

    Inputs: the encoder's dict (`token_ids`, `segment_ids`, `padding_mask`).

    Outputs: float `[batch, num_classes]` logits.

    Example:
    >>> encoder = keras_bert.BertEncoder(vocab_size=23, hidden_size=8, num_hidden_layers=2,
    ...     num_attention_heads=2, intermediate_size=12, max_position_embeddings=16)
    >>> classifier = keras_bert.BertClassifier(encoder, num_classes=4)
    >>> logits = classifier({"token_ids": np.ones((3, 7), "int32"),
    ...     "segment_ids": np.zeros((3, 7), "int32"),
    ...     "padding_mask": np.ones((3, 7), "int32")})
    >>> tuple(logits.shape)
    (3, 4)
    """

    # The Hugging Face class of the same weights (`save_hf_checkpoint` writes it).
    hf_architecture = "BertForSequenceClassification"

    encoder_output = "pooled_output"
