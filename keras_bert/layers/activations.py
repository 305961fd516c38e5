"""`get_activation`: the feed-forward activations a `bert_config.json` may name, as callables."""

import functools

import keras


def _gelu_exact(x):
    # BERT's GELU is the exact erf form, x * Phi(x); keras' default is the tanh approximation.
    return keras.activations.gelu(x, approximate=False)


def _gelu_tanh(x):
    return keras.activations.gelu(x, approximate=True)


_ACTIVATIONS = {
    "gelu": _gelu_exact,
    "gelu_new": _gelu_tanh,
    "relu": keras.activations.relu,
    "tanh": keras.activations.tanh,
    "silu": keras.activations.silu,
}
# The `hidden_act` names a config may use (`BertConfig` validates against these).
HIDDEN_ACTS = tuple(_ACTIVATIONS)


@functools.cache
def get_activation(name):
    """Returns the activation function for a `hidden_act` name ("gelu" is exact GELU)."""
    try:
        return _ACTIVATIONS[name]
    except KeyError:
        raise ValueError(
            f"Unknown hidden_act {name!r}. Use one of {sorted(_ACTIVATIONS)} "
            "('gelu' is BERT's exact GELU, 'gelu_new' the tanh approximation)."
        ) from None
