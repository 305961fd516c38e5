"""`BertSentenceEmbedder`: a `BertEncoder` with mean pooling and L2 normalization (sentence-transformers)."""

import keras

from keras_bert.api_export import keras_bert_export
from keras_bert.layers.mean_pooling import MeanPooling
from keras_bert.models.bert_encoder import encoder_inputs
from keras_bert.models.bert_task import BertTask
from keras_bert.models.bert_task import head_dtype_policy


@keras_bert_export("keras_bert.BertSentenceEmbedder")
class BertSentenceEmbedder(BertTask):
    """One unit vector per text: the mean of the last layer over real tokens, L2-normalized.

    The sentence-transformers recipe of all-MiniLM-L6-v2 and its kin (`Transformer`, then
    `Pooling(mean)`, then `Normalize`), as one Keras model, so that an exported graph
    (`.tflite`, SavedModel) holds the pooling and the normalization too. The cosine of two texts
    is the dot product of their embeddings. Padded positions count for nothing, whatever they
    hold; the normalization is `x / max(||x||, 1e-12)`, torch's `F.normalize`.

    Args:
        encoder: a `BertEncoder` (e.g. `keras_bert.encoder_from_hf_checkpoint(<folder of
            all-MiniLM-L6-v2>)`).

    Inputs: the encoder's dict (`token_ids`, `segment_ids`, `padding_mask`), one text per row
    (`[CLS] text [SEP]`, segment 0).

    Outputs: a dict with `embedding`, float32 `[batch, hidden]`, each row of unit length.

    Example:
    >>> encoder = keras_bert.BertEncoder(vocab_size=23, hidden_size=8, num_hidden_layers=2,
    ...     num_attention_heads=2, intermediate_size=12, max_position_embeddings=16)
    >>> embedder = keras_bert.BertSentenceEmbedder(encoder)
    >>> out = embedder({"token_ids": np.ones((3, 7), "int32"),
    ...     "segment_ids": np.zeros((3, 7), "int32"), "padding_mask": np.ones((3, 7), "int32")})
    >>> tuple(out["embedding"].shape), np.linalg.norm(out["embedding"], axis=1).round(4).tolist()
    ((3, 8), [1.0, 1.0, 1.0])
    """

    uses_pooled_output = False

    def __init__(self, encoder, **kwargs):
        # === Layers ===
        self.encoder = encoder
        # float32 under a mixed policy: the mean and the norm of 384 values are computed on the
        # weights' dtype, as sentence-transformers computes them on the model's.
        self.mean_pooling = MeanPooling(dtype=head_dtype_policy(encoder), name="mean_pooling")
        self.normalization = keras.layers.UnitNormalization(
            axis=-1, dtype=head_dtype_policy(encoder), name="normalization"
        )

        # === Functional Model ===
        inputs = encoder_inputs()
        sequence_output = encoder(inputs)["sequence_output"]  # [B, S, H]
        pooled = self.mean_pooling(sequence_output, inputs["padding_mask"])  # [B, H]
        embedding = self.normalization(pooled)  # [B, H], unit rows
        super().__init__(inputs=inputs, outputs={"embedding": embedding}, **kwargs)
