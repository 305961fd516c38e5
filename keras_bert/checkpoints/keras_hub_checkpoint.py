"""keras-hub `BertBackbone` weights to and from keras_bert.

keras-hub's attention keeps per-head kernels (`[hidden, heads, head_size]`); the TF1 layout is
`[hidden, hidden]`. The values are the same numbers in the same order, so conversion is a reshape
in either direction. keras-hub's BertBackbone uses the tanh approximation of GELU, so an encoder
built from one gets `hidden_act="gelu_new"` to compute what the backbone computes.
"""

import numpy as np

from keras_bert.checkpoints.weight_map import assign_weights, collect_weights
from keras_bert.models.bert_config import BertConfig
from keras_bert.models.bert_encoder import BertEncoder

# keras-hub variable path -> TF1 name; `{i}` is the layer index.
_EMBEDDINGS = {
    "token_embedding/embeddings": "bert/embeddings/word_embeddings",
    "position_embedding/embeddings": "bert/embeddings/position_embeddings",
    "segment_embedding/embeddings": "bert/embeddings/token_type_embeddings",
    "embeddings_layer_norm/gamma": "bert/embeddings/LayerNorm/gamma",
    "embeddings_layer_norm/beta": "bert/embeddings/LayerNorm/beta",
    "pooled_dense/kernel": "bert/pooler/dense/kernel",
    "pooled_dense/bias": "bert/pooler/dense/bias",
}
_LAYER = {
    "self_attention_layer/query": "attention/self/query",
    "self_attention_layer/key": "attention/self/key",
    "self_attention_layer/value": "attention/self/value",
    "self_attention_layer/attention_output": "attention/output/dense",
    "self_attention_layer_norm": "attention/output/LayerNorm",
    "feedforward_intermediate_dense": "intermediate/dense",
    "feedforward_output_dense": "output/dense",
    "feedforward_layer_norm": "output/LayerNorm",
}
_LEAVES = ("kernel", "bias", "gamma", "beta")


def _tf1_name(path):
    if path in _EMBEDDINGS:
        return _EMBEDDINGS[path]
    layer, _, rest = path.partition("/")
    scope, _, leaf = rest.rpartition("/")
    if layer.startswith("transformer_layer_") and scope in _LAYER and leaf in _LEAVES:
        return f"bert/encoder/layer_{layer[len('transformer_layer_'):]}/{_LAYER[scope]}/{leaf}"
    raise ValueError(f"keras-hub BertBackbone weight {path!r} has no BERT counterpart.")


def config_from_backbone(backbone):
    """The `BertConfig` equivalent of a keras-hub `BertBackbone` (tanh GELU, as keras-hub)."""
    return BertConfig(
        vocab_size=backbone.vocabulary_size,
        hidden_size=backbone.hidden_dim,
        num_hidden_layers=backbone.num_layers,
        num_attention_heads=backbone.num_heads,
        intermediate_size=backbone.intermediate_dim,
        hidden_act="gelu_new",
        hidden_dropout_prob=backbone.dropout,
        attention_probs_dropout_prob=backbone.dropout,
        max_position_embeddings=backbone.max_sequence_length,
        type_vocab_size=backbone.num_segments,
    )


def read_keras_hub_weights(backbone):
    """`{tf1_name: array}` from a keras-hub `BertBackbone`."""
    weights = {}
    for variable in backbone.weights:
        name = _tf1_name(variable.path)
        value = np.asarray(variable.numpy())
        if "/attention/" in name:
            # Per-head [H, N, D] and [N, D, H] kernels are [H, H] row-major; [N, D] biases [H].
            shape = (-1, backbone.hidden_dim) if name.endswith("/kernel") else (-1,)
            value = value.reshape(shape)
        weights[name] = value
    return weights


def load_keras_hub_backbone(model, backbone):
    """Loads a keras-hub `BertBackbone`'s weights into `model`, strictly. Returns a `LoadReport`."""
    return assign_weights(
        model, read_keras_hub_weights(backbone), source=f"keras-hub backbone {backbone.name!r}"
    )


def encoder_from_keras_hub(backbone, **kwargs):
    """A `BertEncoder` computing exactly what the keras-hub `BertBackbone` computes."""
    encoder = BertEncoder.from_bert_config(config_from_backbone(backbone), **kwargs)
    load_keras_hub_backbone(encoder, backbone)
    return encoder


def encoder_to_keras_hub(encoder):
    """A keras-hub `BertBackbone` holding `encoder`'s weights (the reverse direction).

    keras-hub's backbone always uses tanh GELU, so only an encoder with `hidden_act="gelu_new"`
    converts without changing its outputs; any other activation is refused.
    """
    import keras_hub

    if encoder.hidden_act != "gelu_new":
        raise ValueError(
            f"keras-hub's BertBackbone uses the tanh GELU ('gelu_new'); this encoder uses "
            f"{encoder.hidden_act!r}, so the backbone would compute different outputs."
        )
    if encoder.hidden_dropout_prob != encoder.attention_probs_dropout_prob:
        raise ValueError(
            "keras-hub's BertBackbone has one dropout rate; this encoder has "
            f"hidden_dropout_prob={encoder.hidden_dropout_prob} and "
            f"attention_probs_dropout_prob={encoder.attention_probs_dropout_prob}."
        )
    backbone = keras_hub.models.BertBackbone(
        vocabulary_size=encoder.vocab_size,
        num_layers=encoder.num_hidden_layers,
        num_heads=encoder.num_attention_heads,
        hidden_dim=encoder.hidden_size,
        intermediate_dim=encoder.intermediate_size,
        dropout=encoder.hidden_dropout_prob,
        max_sequence_length=encoder.max_position_embeddings,
        num_segments=encoder.type_vocab_size,
    )
    weights = collect_weights(encoder)
    for variable in backbone.weights:
        variable.assign(weights[_tf1_name(variable.path)].reshape(variable.shape))
    return backbone
