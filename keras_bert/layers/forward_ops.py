"""`ForwardOps`: the named steps the encoder's forward pass is wired from, and `FLOAT_OPS`."""

from keras_bert.layers.attention_mask import attention_mask


class ForwardOps:
    """The steps of the BERT encoder's forward pass, each as the float model computes it.

    `BertEncoder`, `BertEmbeddings`, `TransformerEncoder` and `SelfAttention` write their
    forward passes (`keras_bert.models.bert_encoder.encode`, the layers' `call_with_ops`) as a
    wiring of these steps on an ops object, so the wiring exists once. The float layers pass
    `FLOAT_OPS`: every step is the layer's own expression, so the float graph is what it would
    be without this indirection. Another spelling of the same math (the int8 graph of
    `keras_bert.export.quantization.qat`) passes its own object with the same methods; there the tensors
    between steps (`x`, the "stream") are a list of per-group tensors. So the wiring does no
    arithmetic of its own: every step, however small, is a method here.

    `STEPS` lists the methods by the wiring that calls them: the encoder's (`encode`, and its
    pooled output), `BertEmbeddings.call_with_ops`, `TransformerEncoder.call_with_ops` and
    `SelfAttention.call_with_ops`. Each takes `training` (dropout; objects that fake-quantize
    also move their ranges with it).
    """

    STEPS = {
        "encoder": ("embed", "mask", "block", "pool"),
        "embeddings": ("embedding_sum", "normalize", "dropout"),
        "block": ("attention", "dense", "dropout", "residual", "normalize", "activation"),
        "attention": ("dense", "attend"),
    }

    # === Encoder ===

    def embed(self, layer, token_ids, segment_ids, training):
        """`BertEmbeddings` -> the stream `[B, S, H]`."""
        return layer(token_ids, segment_ids, training=training)

    def mask(self, padding_mask, attention_pattern, training):
        """The keys each query may attend, in the form `block` takes: here the masks' kwargs."""
        if attention_pattern == "bidirectional":
            return {"padding_mask": padding_mask}
        # [B, S, S]; it already excludes padded keys.
        return {"attention_mask": attention_mask(padding_mask, attention_pattern)}

    def block(self, layer, x, mask, training):
        """One `TransformerEncoder` on the stream."""
        return layer(x, **mask, training=training)

    def pool(self, pooler, x, training):
        """`Pooler` on the stream -> `[B, H]`."""
        return pooler(x)

    # === Embeddings and blocks ===

    def embedding_sum(self, layer, token_ids, segment_ids, training):
        """The summed token, segment and position embeddings `[B, S, H]`."""
        return layer.embedding_sum(token_ids, segment_ids)

    def normalize(self, layer, x, training):
        """A `LayerNormalization` of the stream."""
        return layer(x)

    def dropout(self, layer, x, training):
        return layer(x, training=training)

    def dense(self, layer, x, training):
        """A `Dense` from or to the stream."""
        return layer(x)

    def residual(self, x, y, site, training):
        """The residual sum `x + y`; `site` names it ("attention", "output")."""
        return x + y

    def activation(self, fn, x, training):
        return fn(x)

    # === Attention ===

    def attention(self, layer, x, mask, training):
        """`SelfAttention` on the stream -> the concatenated contexts `[B, S, H]`."""
        return layer(x, **mask, training=training)

    def attend(self, layer, query, key, value, mask, training):
        """`SelfAttention`'s scores, mask, softmax and contexts from the projections."""
        return layer.attend(query, key, value, **mask, training=training)


FLOAT_OPS = ForwardOps()
