"""`BertPretrainer`: a `BertEncoder` with the masked-LM and next-sentence heads."""

import keras

from keras_bert.api_export import keras_bert_export
from keras_bert.layers.classification_head import ClassificationHead
from keras_bert.layers.masked_lm_head import MaskedLMHead
from keras_bert.models.bert_encoder import encoder_inputs
from keras_bert.models.bert_task import BertTask
from keras_bert.models.bert_task import head_dtype_policy


@keras_bert_export("keras_bert.BertPretrainer")
class BertPretrainer(BertTask):
    """BERT's pretraining model: masked language modelling plus next-sentence prediction.

    The masked-LM head reuses the encoder's token embedding matrix for its output projection and
    is evaluated only at `mask_positions`; the next-sentence head classifies the pooled output.

    Args:
        encoder: a `BertEncoder`.

    Inputs: the encoder's dict plus `mask_positions`, int32 `[batch, predictions]`.

    Outputs: a dict:
        `mlm_logits`: float `[batch, predictions, vocab_size]`.
        `nsp_logits`: float `[batch, 2]`; class 0 is "IsNext", 1 is "NotNext" (google-research's
            `next_sentence_labels`).

    Example:
    >>> encoder = keras_bert.BertEncoder(vocab_size=23, hidden_size=8, num_hidden_layers=2,
    ...     num_attention_heads=2, intermediate_size=12, max_position_embeddings=16)
    >>> pretrainer = keras_bert.BertPretrainer(encoder)
    >>> outputs = pretrainer({"token_ids": np.ones((3, 7), "int32"),
    ...     "segment_ids": np.zeros((3, 7), "int32"), "padding_mask": np.ones((3, 7), "int32"),
    ...     "mask_positions": np.ones((3, 5), "int32")})
    >>> tuple(outputs["mlm_logits"].shape), tuple(outputs["nsp_logits"].shape)
    ((3, 5, 23), (3, 2))
    """

    # The Hugging Face class of the same weights (`save_hf_checkpoint` writes it).
    hf_architecture = "BertForPreTraining"

    def __init__(self, encoder, **kwargs):
        # === Layers ===
        self.encoder = encoder
        self.masked_lm_head = MaskedLMHead(
            encoder.token_embedding,
            hidden_act=encoder.hidden_act,
            initializer_range=encoder.initializer_range,
            dtype=encoder.dtype_policy,
            name="masked_lm_head",
        )
        self.next_sentence_head = ClassificationHead(
            2,
            dropout=0.0,
            initializer_range=encoder.initializer_range,
            dtype=head_dtype_policy(encoder),
            name="next_sentence_head",
        )

        # === Functional Model ===
        inputs = encoder_inputs()
        inputs["mask_positions"] = keras.Input(shape=(None,), dtype="int32", name="mask_positions")
        encoded = encoder({k: v for k, v in inputs.items() if k != "mask_positions"})
        outputs = {
            "mlm_logits": self.masked_lm_head(
                encoded["sequence_output"], inputs["mask_positions"]
            ),  # [B, P, V]
            "nsp_logits": self.next_sentence_head(encoded["pooled_output"]),  # [B, 2]
        }
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)

    @property
    def checkpoint_items(self):
        return {
            "encoder": self.encoder,
            "masked_lm": self.masked_lm_head,
            "next_sentence": self.next_sentence_head,
        }
