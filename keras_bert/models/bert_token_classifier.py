"""`BertTokenClassifier`: a `BertEncoder` with a per-token classification head (e.g. NER)."""

from keras_bert.api_export import keras_bert_export
from keras_bert.layers.classification_head import ClassificationHead
from keras_bert.models.bert_encoder import encoder_inputs
from keras_bert.models.bert_task import BertTask


@keras_bert_export("keras_bert.BertTokenClassifier")
class BertTokenClassifier(BertTask):
    """Token classification (NER, tagging): dropout + dense on every position's hidden state.

    Args:
        encoder: a `BertEncoder`.
        num_classes: int. Number of token labels.
        dropout: float. Dropout before the classifier. Defaults to 0.1.

    Inputs: the encoder's dict (`token_ids`, `segment_ids`, `padding_mask`).

    Outputs: float `[batch, seq, num_classes]` logits.

    Example:
    >>> encoder = keras_bert.BertEncoder(vocab_size=23, hidden_size=8, num_hidden_layers=2,
    ...     num_attention_heads=2, intermediate_size=12, max_position_embeddings=16)
    >>> tagger = keras_bert.BertTokenClassifier(encoder, num_classes=5)
    >>> tagger({"token_ids": np.ones((3, 7), "int32"),
    ...     "segment_ids": np.zeros((3, 7), "int32"),
    ...     "padding_mask": np.ones((3, 7), "int32")}).shape
    TensorShape([3, 7, 5])
    """

    uses_pooled_output = False

    def __init__(self, encoder, num_classes, dropout=0.1, **kwargs):
        # === Layers ===
        self.encoder = encoder
        self.classification_head = ClassificationHead(
            num_classes,
            dropout=dropout,
            initializer_range=encoder.initializer_range,
            dtype=encoder.dtype_policy,
            name="classification_head",
        )

        # === Functional Model ===
        inputs = encoder_inputs()
        sequence_output = encoder(inputs)["sequence_output"]  # [B, S, H]
        logits = self.classification_head(sequence_output)  # [B, S, num_classes]
        super().__init__(inputs=inputs, outputs=logits, **kwargs)

        # === Config ===
        self.num_classes = num_classes
        self.dropout = dropout

    def task_config(self):
        return {"num_classes": self.num_classes, "dropout": self.dropout}
