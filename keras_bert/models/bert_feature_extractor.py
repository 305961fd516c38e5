"""`BertFeatureExtractor`: chosen encoder layers' per-token outputs (the feature-based use of BERT)."""

from keras_bert.api_export import keras_bert_export
from keras_bert.models.bert_encoder import encoder_inputs
from keras_bert.models.bert_task import BertTask


@keras_bert_export("keras_bert.BertFeatureExtractor")
class BertFeatureExtractor(BertTask):
    """The outputs of the Transformer layers named by `layers`, for frozen-feature use.

    Layer indices count like google-research/bert's `extract_features.py --layers`: `-1` is the
    last layer (the same tensor as the encoder's `sequence_output`), `-2` the one before, and
    `0` the first Transformer layer.

    Args:
        encoder: a `BertEncoder`.
        layers: sequence of int layer indices. Defaults to `(-1, -2, -3, -4)`.

    Inputs: the encoder's dict (`token_ids`, `segment_ids`, `padding_mask`).

    Outputs: a dict `{"layer_<index>": float [batch, seq, hidden]}`, one per entry of `layers`.

    Example:
    >>> encoder = keras_bert.BertEncoder(vocab_size=23, hidden_size=8, num_hidden_layers=2,
    ...     num_attention_heads=2, intermediate_size=12, max_position_embeddings=16)
    >>> extractor = keras_bert.BertFeatureExtractor(encoder, layers=(-1, 0))
    >>> outputs = extractor({"token_ids": np.ones((3, 7), "int32"),
    ...     "segment_ids": np.zeros((3, 7), "int32"), "padding_mask": np.ones((3, 7), "int32")})
    >>> sorted(outputs), tuple(outputs["layer_-1"].shape)
    (['layer_-1', 'layer_0'], (3, 7, 8))
    """

    uses_pooled_output = False

    def __init__(self, encoder, layers=(-1, -2, -3, -4), **kwargs):
        count = encoder.num_hidden_layers
        bad = [i for i in layers if not -count <= i < count]
        if bad or not layers:
            raise ValueError(
                f"layers {list(layers)}: the encoder has {count} layers, so indices must be in "
                f"[{-count}, {count - 1}] (-1 is the last layer)."
            )
        # === Layers ===
        self.encoder = encoder

        # === Functional Model ===
        inputs = encoder_inputs()
        encoder_outputs = encoder(inputs)["encoder_outputs"]  # num_hidden_layers x [B, S, H]
        outputs = {f"layer_{i}": encoder_outputs[i] for i in layers}
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)

        # === Config ===
        self.layers_to_extract = tuple(layers)

    def task_config(self):
        return {"layers": list(self.layers_to_extract)}
