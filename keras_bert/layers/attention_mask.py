"""Which keys each query may attend to: BERT's bidirectional pattern, a causal one, and `hide_next`."""

from keras import ops

from keras_bert.api_export import keras_bert_export

# bidirectional: every query sees every real key (BERT). causal: query i sees keys 0..i (a
# left-to-right language model). hide_next: query i sees every key except i + 1, the token it is
# asked to predict under a next-token objective; that token still reaches it through a second
# layer, via any position that attended to it in the first (Devlin et al. 2018, section 3.1:
# bidirectional conditioning lets each word "see itself").
ATTENTION_PATTERNS = ("bidirectional", "causal", "hide_next")


@keras_bert_export("keras_bert.layers.attention_mask")
def attention_mask(padding_mask, pattern="bidirectional"):
    """The `[batch, query, key]` attention mask of `pattern` over the real tokens.

    Args:
        padding_mask: int or bool tensor `[batch, seq]`, 1/true for real tokens.
        pattern: one of `ATTENTION_PATTERNS`.

    Returns:
        bool tensor `[batch, seq, seq]`, true where query `i` may attend to key `j`: `j` is a real
        token and the pattern allows the pair.

    Example:
    >>> mask = keras_bert.layers.attention_mask(np.array([[1, 1, 1, 0]]), "causal")
    >>> np.asarray(mask[0]).astype(int).tolist()
    [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 0]]
    """
    if pattern not in ATTENTION_PATTERNS:
        raise ValueError(f"Unknown attention pattern {pattern!r}; use one of {ATTENTION_PATTERNS}.")
    keys = ops.cast(padding_mask, "bool")[:, None, :]  # [B, 1, S]
    # Positions from the mask itself, so that the length may be symbolic (functional models).
    position = ops.cumsum(ops.ones_like(padding_mask, "int32"), axis=1) - 1  # [B, S]
    query, key = position[:, :, None], position[:, None, :]  # [B, S, 1], [B, 1, S]
    if pattern == "bidirectional":
        allowed = ops.greater_equal(query, 0)  # [B, S, 1], all true
    elif pattern == "causal":
        allowed = ops.less_equal(key, query)  # [B, S, S]
    else:  # hide_next
        allowed = ops.not_equal(key, query + 1)  # [B, S, S]
    return ops.logical_and(keys, allowed)  # [B, S, S]
