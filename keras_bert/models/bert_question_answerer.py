"""`BertQuestionAnswerer`: a `BertEncoder` with a start/end span head (SQuAD-style QA)."""

from keras_bert.api_export import keras_bert_export
from keras_bert.layers.span_head import SpanHead
from keras_bert.models.bert_encoder import encoder_inputs
from keras_bert.models.bert_task import BertTask
from keras_bert.models.bert_task import head_dtype_policy


@keras_bert_export("keras_bert.BertQuestionAnswerer")
class BertQuestionAnswerer(BertTask):
    """Extractive question answering: start and end logits for every position.

    Input layout is `[CLS] question [SEP] context [SEP]`; the answer is the span of context
    positions that maximises `start_logits[i] + end_logits[j]` with `i <= j`.

    Args:
        encoder: a `BertEncoder`.

    Inputs: the encoder's dict (`token_ids`, `segment_ids`, `padding_mask`).

    Outputs: a dict of float `[batch, seq]` tensors, `start_logits` and `end_logits`.

    Example:
    >>> encoder = keras_bert.BertEncoder(vocab_size=23, hidden_size=8, num_hidden_layers=2,
    ...     num_attention_heads=2, intermediate_size=12, max_position_embeddings=16)
    >>> qa = keras_bert.BertQuestionAnswerer(encoder)
    >>> outputs = qa({"token_ids": np.ones((3, 7), "int32"),
    ...     "segment_ids": np.zeros((3, 7), "int32"), "padding_mask": np.ones((3, 7), "int32")})
    >>> tuple(outputs["start_logits"].shape)
    (3, 7)
    """

    # The Hugging Face class of the same weights (`save_hf_checkpoint` writes it).
    hf_architecture = "BertForQuestionAnswering"

    uses_pooled_output = False

    def __init__(self, encoder, **kwargs):
        # === Layers ===
        self.encoder = encoder
        self.span_head = SpanHead(
            initializer_range=encoder.initializer_range,
            dtype=head_dtype_policy(encoder),
            name="span_head",
        )

        # === Functional Model ===
        inputs = encoder_inputs()
        start_logits, end_logits = self.span_head(encoder(inputs)["sequence_output"])  # [B, S]
        outputs = {"start_logits": start_logits, "end_logits": end_logits}
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)
