"""`BertEncoder`: the BERT Transformer encoder as a functional Keras model."""

import keras

from keras_bert.api_export import keras_bert_export
from keras_bert.layers.attention_mask import ATTENTION_PATTERNS
from keras_bert.layers.bert_embeddings import BertEmbeddings
from keras_bert.layers.forward_ops import FLOAT_OPS
from keras_bert.layers.pooler import Pooler
from keras_bert.layers.transformer_encoder import TransformerEncoder
from keras_bert.models.bert_config import BertConfig
from keras_bert.models.functional_subclass import FunctionalSubclass

# The encoder's input names, in the order export signatures list them.
ENCODER_INPUTS = ("token_ids", "segment_ids", "padding_mask")


def encoder_inputs():
    """Fresh symbolic `{token_ids, segment_ids, padding_mask}` inputs, int32 `[batch, seq]`."""
    return {
        name: keras.Input(shape=(None,), dtype="int32", name=name) for name in ENCODER_INPUTS
    }


def encode(embeddings, transformer_layers, inputs, attention_pattern, ops, training=None):
    """The encoder's forward pass as steps of `ops` (see `keras_bert.layers.ForwardOps`).

    Args:
        embeddings: the `BertEmbeddings` layer.
        transformer_layers: the `TransformerEncoder` blocks, in order.
        inputs: dict of int `[B, S]` tensors `token_ids`, `segment_ids`, `padding_mask`.
        attention_pattern: one of `keras_bert.layers.ATTENTION_PATTERNS`.
        ops: the steps, e.g. `keras_bert.layers.forward_ops.FLOAT_OPS`.
        training: bool, enables dropout.

    Returns:
        list of every block's output `[B, S, H]` (the last is the sequence output).
    """
    x = ops.embed(embeddings, inputs["token_ids"], inputs["segment_ids"], training)  # [B, S, H]
    mask = ops.mask(inputs["padding_mask"], attention_pattern, training)
    encoder_outputs = []
    for transformer_layer in transformer_layers:
        x = ops.block(transformer_layer, x, mask, training)  # [B, S, H]
        encoder_outputs.append(x)
    return encoder_outputs


@keras_bert_export("keras_bert.BertEncoder")
class BertEncoder(FunctionalSubclass):
    """The BERT encoder: embeddings, `num_hidden_layers` post-LN Transformer blocks, pooler.

    The constructor takes the `bert_config.json` keys (see `BertConfig`); build one from a
    config with `BertEncoder.from_bert_config(config)`. The model is an ordinary functional Keras
    model: `predict`, `fit`, `.keras` saving and `model.export` work as usual.

    Args:
        vocab_size, hidden_size, num_hidden_layers, num_attention_heads, intermediate_size,
        hidden_act, hidden_dropout_prob, attention_probs_dropout_prob, max_position_embeddings,
        type_vocab_size, initializer_range: as in `BertConfig`.
        attention_pattern: which keys each position attends to, one of
            `keras_bert.layers.ATTENTION_PATTERNS`: `"bidirectional"` (BERT, the default),
            `"causal"` (a left-to-right language model) or `"hide_next"` (all but the next
            token; the see-itself demonstration). Not a `bert_config.json` key: the weights are
            the same for every pattern, so a checkpoint can be loaded with any of them.
        dtype: Keras dtype policy, e.g. `"mixed_bfloat16"`. Defaults to the global policy.

    Inputs: a dict of int32 tensors `[batch, seq]`:
        `token_ids`: WordPiece ids. `segment_ids`: 0 for the first segment, 1 for the second.
        `padding_mask`: 1 for real tokens, 0 for padding.

    Outputs: a dict:
        `sequence_output`: float `[batch, seq, hidden_size]`, the last layer.
        `pooled_output`: float `[batch, hidden_size]`, tanh dense of the [CLS] position.
        `encoder_outputs`: list of `num_hidden_layers` float `[batch, seq, hidden_size]`, every
            layer's output (for feature extraction; the last equals `sequence_output`).

    Example:
    >>> encoder = keras_bert.BertEncoder(vocab_size=23, hidden_size=8, num_hidden_layers=2,
    ...     num_attention_heads=2, intermediate_size=12, max_position_embeddings=16)
    >>> outputs = encoder({"token_ids": np.ones((3, 7), "int32"),
    ...     "segment_ids": np.zeros((3, 7), "int32"), "padding_mask": np.ones((3, 7), "int32")})
    >>> tuple(outputs["sequence_output"].shape), tuple(outputs["pooled_output"].shape)
    ((3, 7, 8), (3, 8))

    Reference:
        Devlin et al. 2018, "BERT: Pre-training of Deep Bidirectional Transformers for Language
        Understanding".
    """

    # The Hugging Face class of the same weights (`save_hf_checkpoint` writes it).
    hf_architecture = "BertModel"

    def __init__(
        self,
        vocab_size,
        hidden_size=768,
        num_hidden_layers=12,
        num_attention_heads=12,
        intermediate_size=3072,
        hidden_act="gelu",
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1,
        max_position_embeddings=512,
        type_vocab_size=2,
        initializer_range=0.02,
        attention_pattern="bidirectional",
        dtype=None,
        **kwargs,
    ):
        # Validates every field (and names the bad one) before any layer is built.
        config = BertConfig(
            vocab_size=vocab_size,
            hidden_size=hidden_size,
            num_hidden_layers=num_hidden_layers,
            num_attention_heads=num_attention_heads,
            intermediate_size=intermediate_size,
            hidden_act=hidden_act,
            hidden_dropout_prob=hidden_dropout_prob,
            attention_probs_dropout_prob=attention_probs_dropout_prob,
            max_position_embeddings=max_position_embeddings,
            type_vocab_size=type_vocab_size,
            initializer_range=initializer_range,
        )
        if attention_pattern not in ATTENTION_PATTERNS:
            raise ValueError(
                f"attention_pattern={attention_pattern!r} is not one of {ATTENTION_PATTERNS}."
            )

        # === Layers ===
        self.embeddings = BertEmbeddings(
            vocab_size,
            hidden_size,
            max_position_embeddings,
            type_vocab_size,
            hidden_dropout_prob=hidden_dropout_prob,
            initializer_range=initializer_range,
            dtype=dtype,
            name="embeddings",
        )
        self.transformer_layers = [
            TransformerEncoder(
                num_attention_heads,
                intermediate_size,
                hidden_act=hidden_act,
                hidden_dropout_prob=hidden_dropout_prob,
                attention_probs_dropout_prob=attention_probs_dropout_prob,
                initializer_range=initializer_range,
                dtype=dtype,
                name=f"transformer_layer_{i}",
            )
            for i in range(num_hidden_layers)
        ]
        self.pooler = Pooler(initializer_range=initializer_range, dtype=dtype, name="pooler")

        # === Functional Model ===
        inputs = encoder_inputs()
        encoder_outputs = encode(
            self.embeddings, self.transformer_layers, inputs, attention_pattern, FLOAT_OPS
        )
        x = encoder_outputs[-1]  # [B, S, H]
        outputs = {
            "sequence_output": x,
            "pooled_output": FLOAT_OPS.pool(self.pooler, x, None),  # [B, H]
            "encoder_outputs": encoder_outputs,
        }
        super().__init__(inputs=inputs, outputs=outputs, dtype=dtype, **kwargs)

        # === Config ===
        self.bert_config = config
        for key, value in config.to_dict().items():
            setattr(self, key, value)
        self.attention_pattern = attention_pattern

    @property
    def token_embedding(self):
        """The token `Embedding` layer (the masked-LM head ties its output projection to it)."""
        return self.embeddings.token_embedding

    @classmethod
    def from_bert_config(cls, config, **kwargs):
        """Builds an encoder from a `BertConfig` (kwargs: `dtype`, `name`, ...)."""
        return cls(**config.to_dict(), **kwargs)

    def get_config(self):
        # Only the constructor arguments: a functional subclass must not return the layer graph.
        return {
            **self.bert_config.to_dict(),
            "attention_pattern": self.attention_pattern,
            "name": self.name,
            "trainable": self.trainable,
            "dtype": keras.dtype_policies.serialize(self.dtype_policy),
        }
