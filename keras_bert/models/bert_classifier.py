"""`BertClassifier`: a `BertEncoder` with a classification head on the pooled [CLS] output."""

from keras_bert.api_export import keras_bert_export
from keras_bert.layers.classification_head import ClassificationHead
from keras_bert.models.bert_encoder import encoder_inputs
from keras_bert.models.bert_task import BertTask


@keras_bert_export("keras_bert.BertClassifier")
class BertClassifier(BertTask):
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
    >>> classifier({"token_ids": np.ones((3, 7), "int32"),
    ...     "segment_ids": np.zeros((3, 7), "int32"),
    ...     "padding_mask": np.ones((3, 7), "int32")}).shape
    TensorShape([3, 4])
    """

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
        pooled_output = encoder(inputs)["pooled_output"]  # [B, H]
        logits = self.classification_head(pooled_output)  # [B, num_classes]
        super().__init__(inputs=inputs, outputs=logits, **kwargs)

        # === Config ===
        self.num_classes = num_classes
        self.dropout = dropout

    def task_config(self):
        return {"num_classes": self.num_classes, "dropout": self.dropout}
