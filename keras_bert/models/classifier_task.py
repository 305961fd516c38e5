"""`ClassifierTask`: the shared base of models that put a `ClassificationHead` on one encoder output."""

from keras_bert.layers.classification_head import ClassificationHead
from keras_bert.models.bert_encoder import encoder_inputs
from keras_bert.models.bert_task import BertTask
from keras_bert.models.bert_task import head_dtype_policy


class ClassifierTask(BertTask):
    """`BertEncoder` + dropout + dense on the encoder output named by `encoder_output`.

    `BertClassifier` reads `pooled_output` ([batch, num_classes] logits) and
    `BertTokenClassifier` reads `sequence_output` ([batch, seq, num_classes] logits); the head
    and its TF1 names (`output_weights`, `output_bias`) are the same.

    Args:
        encoder: a `BertEncoder`.
        num_classes: int. Number of classes (or token labels).
        dropout: float. Dropout before the classifier. Defaults to 0.1.
    """

    encoder_output = "pooled_output"

    def __init__(self, encoder, num_classes, dropout=0.1, **kwargs):
        # === Layers ===
        self.encoder = encoder
        self.classification_head = ClassificationHead(
            num_classes,
            dropout=dropout,
            initializer_range=encoder.initializer_range,
            dtype=head_dtype_policy(encoder),
            name="classification_head",
        )

        # === Functional Model ===
        inputs = encoder_inputs()
        features = encoder(inputs)[self.encoder_output]  # [B, H] or [B, S, H]
        logits = self.classification_head(features)  # [B, num_classes] or [B, S, num_classes]
        super().__init__(inputs=inputs, outputs=logits, **kwargs)

        # === Config ===
        self.num_classes = num_classes
        self.dropout = dropout

    def task_config(self):
        return {"num_classes": self.num_classes, "dropout": self.dropout}
