"""`quantize_aware`: a keras_bert model with int8 fake quantization where TFLite quantizes."""

import math

import keras
import numpy as np
import tensorflow as tf

import keras_bert
from keras_bert.export.quantization.fake_quant import SCORES_MIN_WIDTH
from keras_bert.export.quantization.fake_quant import SOFTMAX_RANGE
from keras_bert.export.quantization.fake_quant import FakeQuant
from keras_bert.export.quantization.fake_quant import WeightFakeQuant
from keras_bert.export.quantization.fake_quant import check_quantizable
from keras_bert.export.quantization.fake_quant import fake_quant_layers
from keras_bert.export.quantization.fake_quant import set_fake_quant_mode
from keras_bert.layers.self_attention import MASK_ADDEND
from keras_bert.models.bert_encoder import encode


def _add_fake_quants(layer, names, ema_decay, **kwargs):
    # Plain attributes, not a dict: tf.train.Checkpoint does not see into Keras' tracked dicts,
    # and the ranges must be saved with the weights.
    for name in names:
        setattr(layer, f"{name}_fq", FakeQuant(ema_decay, name=name, **kwargs))


def _fake_quant_fns(layer, names, training):
    """`{name: fn(tensor, **kwargs)}` calling the layer's `<name>_fq` in this training mode."""
    return {
        n: (lambda t, q=getattr(layer, f"{n}_fq"), **kw: q(t, training=training, **kw))
        for n in names
    }


class _GroupedDense(keras.layers.Layer):
    """A `Dense` between the grouped residual stream and a plain tensor, as int8 TFLite ops.

    The stream is a list of `[B, S, H_g]` tensors, one per dimension group (see
    `keras_bert.export.quantization.int8_profile`), each with its own int8 scale. Reading the stream
    (`groups_in`) is one FULLY_CONNECTED per group on the matching kernel rows, summed; writing it
    (`groups_out`) is one per group on the matching kernel columns. Each kernel slice gets its
    own per-channel int8 scales, as the converter gives each FULLY_CONNECTED.
    With one group this is the plain `Dense`.
    """

    def __init__(self, layer, groups, ema_decay, groups_in, fold=1.0, **kwargs):
        super().__init__(**kwargs)
        self.layer = layer
        self.groups = groups
        self.groups_in = groups_in
        self.fold = fold
        self.split = len(groups) > 1
        for g in range(len(groups)):
            setattr(self, f"kernel_{g}_wq", WeightFakeQuant(name=f"kernel_{g}"))
            if self.split and groups_in:
                setattr(self, f"part_{g}_fq", FakeQuant(ema_decay, name=f"part_{g}"))
                if 0 < g < len(groups) - 1:
                    setattr(self, f"sum_{g}_fq", FakeQuant(ema_decay, name=f"sum_{g}"))

    def call(self, x, training=None):
        kernel = tf.convert_to_tensor(self.layer.kernel) * self.fold  # [in, out]
        bias = tf.convert_to_tensor(self.layer.bias) * self.fold
        if not self.split:
            x = x[0] if self.groups_in else x
            out = tf.matmul(x, self.kernel_0_wq(kernel)) + bias
            return [out] if not self.groups_in else out
        if not self.groups_in:  # plain tensor -> one output per group
            outputs = []
            for g, dims in enumerate(self.groups):
                wq = getattr(self, f"kernel_{g}_wq")
                outputs.append(tf.matmul(x, wq(tf.gather(kernel, dims, axis=1)))
                               + tf.gather(bias, dims))
            return outputs
        last = len(self.groups) - 1
        total = None  # grouped stream -> plain tensor: partial products, summed
        for g, (part_in, dims) in enumerate(zip(x, self.groups)):
            wq = getattr(self, f"kernel_{g}_wq")
            part = tf.matmul(part_in, wq(tf.gather(kernel, dims, axis=0)))  # [..., out]
            part = getattr(self, f"part_{g}_fq")(part + bias if g == 0 else part, training=training)
            total = part if g == 0 else total + part
            if 0 < g < last:  # the caller quantizes the final sum
                total = getattr(self, f"sum_{g}_fq")(total, training=training)
        return total


class _LayerNorm(keras.layers.Layer):
    """LayerNorm over the grouped residual stream, spelled as int8 TFLite ops.

    The sum of squares is one int8 BATCH_MATMUL per token and group (`c . c`, accumulated in
    int32), not a squared `[B, S, H]` tensor: residual outliers (|c| ~ 200 in MiniLM's first
    layer) would stretch that tensor's grid to ~49000 / 255, rounding every ordinary square to
    0. `1/H` moves into the epsilon and `sqrt(H)` into gamma, so no op is spent on them.

    The per-token sum of squares is still one per-tensor int8 range: separator tokens' sums
    (~41000 in MiniLM's first layer) coarsen ordinary tokens' (a few hundred) to steps of ~160.
    Computing rsqrt on two ranges (ordinary / outlier tokens, joined by `tf.where`) was tried:
    +0.1 F1 in Keras fake quant, and TF 2.21's converter produced a broken int8 graph for it
    (docs/lab/export_history.md). With `split_variance` (and more than one group), the sum is
    never formed: with `s_o` the first (outlier) group's squares and `s_b` the other groups', a
    few hundred for every token, `1/sqrt(s_o + s_b) = r * rsqrt(1 + s_o * r^2)` with
    `r = rsqrt(s_b)`. The ratio `s_o * r^2` runs from ~0 (ordinary tokens, where rounding it to 0
    costs under 1 %) to ~200 (separator tokens, where its step is under 1 % of it), so every int8
    tensor on the way keeps its relative precision. Same float math, plain int8 MUL, ADD and RSQRT
    ops.
    """

    def __init__(self, layer, groups, ema_decay, split_variance=False, **kwargs):
        super().__init__(**kwargs)
        self.layer = layer
        self.groups = groups
        self.split_variance = split_variance and len(groups) > 1
        self.names = ["mean", "inverse"]
        first = 1 if self.split_variance else 0  # where the running sum of squares starts
        for g in range(len(groups)):
            self.names += [f"centered_{g}", f"squares_{g}", f"normalized_{g}", f"scaled_{g}",
                           f"output_{g}"]
            if g > first:
                self.names += [f"squares_sum_{g}"]
            if 0 < g < len(groups) - 1:
                self.names += [f"mean_sum_{g}"]
        if self.split_variance:
            self.names += ["bulk_inverse", "bulk_inverse_squared", "ratio", "ratio_plus_one",
                           "ratio_rsqrt"]
        _add_fake_quants(self, self.names, ema_decay)

    def call(self, x, training=None):
        fq = _fake_quant_fns(self, self.names, training)
        width = sum(len(dims) for dims in self.groups)
        # The mean as a FULLY_CONNECTED on a constant 1/H column (exact int32 accumulation),
        # not SUM / MEAN: TF 2.21's optimized int8 SUM kernel is off by up to 105 grid steps
        # from the reference kernel on these rows (found op by op;
        # docs/lab/export_history.md).
        mean = None
        for g, part in enumerate(x):
            part_mean = tf.matmul(part, tf.fill([part.shape[-1], 1], 1.0 / width))  # [B, S, 1]
            if g == 0:
                mean = part_mean
                continue
            mean = mean + part_mean
            if g < len(x) - 1:
                mean = fq[f"mean_sum_{g}"](mean)
        mean = fq["mean"](mean)  # [B, S, 1]
        centered = [fq[f"centered_{g}"](part - mean) for g, part in enumerate(x)]
        squares = [
            # [B, S, 1, H_g] @ [B, S, H_g, 1] -> [B, S, 1, 1]: this group's share of H * variance.
            fq[f"squares_{g}"](tf.matmul(part[..., None, :], part[..., :, None])[..., 0])
            for g, part in enumerate(centered)
        ]
        first = 1 if self.split_variance else 0
        total = squares[first]
        for g in range(first + 1, len(squares)):
            total = fq[f"squares_sum_{g}"](total + squares[g])  # [B, S, 1]
        floor = width * self.layer.epsilon
        # max(), not LayerNorm's "+ epsilon": an int8 ADD of a ~1e-10 constant came out wrong by
        # ~9 grid steps in TF 2.21's kernels (QuantizationDebugger); max() keeps the scale.
        if self.split_variance:  # `total` is the other groups' share; see the class docstring
            bulk_inverse = fq["bulk_inverse"](tf.math.rsqrt(tf.maximum(total, floor)))  # [B, S, 1]
            ratio = fq["ratio"](squares[0] * fq["bulk_inverse_squared"](bulk_inverse * bulk_inverse))
            ratio_rsqrt = fq["ratio_rsqrt"](tf.math.rsqrt(fq["ratio_plus_one"](ratio + 1.0)))
            inverse = fq["inverse"](bulk_inverse * ratio_rsqrt)  # [B, S, 1]
        else:
            inverse = fq["inverse"](tf.math.rsqrt(tf.maximum(total, floor)))  # [B, S, 1]
        gamma = tf.convert_to_tensor(self.layer.gamma) * math.sqrt(width)
        beta = tf.convert_to_tensor(self.layer.beta)
        outputs = []
        for g, (part, dims) in enumerate(zip(centered, self.groups)):
            normalized = fq[f"normalized_{g}"](part * inverse)  # [B, S, H_g]
            scaled = fq[f"scaled_{g}"](normalized * _columns(gamma, dims, self.groups))
            outputs.append(fq[f"output_{g}"](scaled + _columns(beta, dims, self.groups)))
        return outputs


def _columns(t, dims, groups):
    """`t[..., dims]`, or `t` itself when there is one group (keeps the plain graph plain)."""
    return t if len(groups) == 1 else tf.gather(t, dims, axis=-1)


class _StreamOps:
    """The `keras_bert.layers.ForwardOps` steps that the embeddings and blocks spell alike.

    The stream is a list of `[B, S, H_g]` tensors, one per dimension group. Each LayerNorm is
    the holder's `_LayerNorm` named as the float one.
    """

    def normalize(self, layer, x, training):
        return getattr(self, layer.name)(x, training=training)  # [[B, S, H_g]]

    def dropout(self, layer, x, training):
        return [layer(part, training=training) for part in x]


class _Embeddings(_StreamOps, keras.layers.Layer):
    """`BertEmbeddings` with int8 tables and fake-quantized sums, per dimension group.

    `BertEmbeddings.call_with_ops` is the wiring; this layer is its ops (`ForwardOps`).
    """

    def __init__(self, layer, groups, ema_decay, split_variance=False, **kwargs):
        super().__init__(**kwargs)
        self.layer = layer
        self.groups = groups
        self.names = []
        for g in range(len(groups)):
            self.names += [f"token_table_{g}", f"segment_table_{g}", f"position_table_{g}",
                           f"token_segment_sum_{g}", f"embedding_sum_{g}"]
        _add_fake_quants(self, self.names, ema_decay)
        self.layer_norm = _LayerNorm(layer.layer_norm, groups, ema_decay, split_variance,
                                     name="layer_norm")

    def call(self, token_ids, segment_ids, training=None):
        return self.layer.call_with_ops(token_ids, segment_ids, training, self)  # [[B, S, H_g]]

    def embedding_sum(self, layer, token_ids, segment_ids, training):
        fq = _fake_quant_fns(self, self.names, training)
        seq = tf.shape(token_ids)[1]
        tables = (layer.token_embedding.embeddings, layer.segment_embedding.embeddings,
                  layer.position_embeddings)
        x = []
        for g, dims in enumerate(self.groups):
            # The tables are constants of the TFLite graph, quantized per tensor by their range.
            token, segment, position = (_columns(tf.convert_to_tensor(t), dims, self.groups)
                                        for t in tables)
            tokens = tf.gather(fq[f"token_table_{g}"](token), token_ids)  # [B, S, H_g]
            segments = tf.gather(fq[f"segment_table_{g}"](segment), segment_ids)  # [B, S, H_g]
            positions = fq[f"position_table_{g}"](position[:seq])  # [S, H_g]
            part = fq[f"token_segment_sum_{g}"](tokens + segments)
            x.append(fq[f"embedding_sum_{g}"](part + positions[None]))  # [B, S, H_g]
        return x


class _Transformer(_StreamOps, keras.layers.Layer):
    """`TransformerEncoder` (with its `SelfAttention`) and fake quantization after every op.

    `TransformerEncoder.call_with_ops` and `SelfAttention.call_with_ops` are the wiring; this
    layer is their ops (`ForwardOps`). Each float `Dense` is the `_GroupedDense`
    `<name>_dense`, and each LayerNorm the `_LayerNorm` of its name.
    """

    def __init__(self, layer, groups, ema_decay, head_scales=False, split_variance=False,
                 **kwargs):
        super().__init__(**kwargs)
        self.layer = layer
        attention = layer.attention
        self.head_scales = head_scales
        self.names = ["query", "key", "value", "context", "intermediate", "activation"]
        for g in range(len(groups)):
            self.names += [f"attention_output_{g}", f"attention_sum_{g}", f"output_{g}",
                           f"output_sum_{g}"]
        _add_fake_quants(self, self.names, ema_decay)
        # With `head_scales`, each head's softmax inputs are their own tensors ("_0", "_1", ...)
        # and are shifted to their row maximum (see `_softmax_input`).
        self.heads = [f"_{h}" for h in range(attention.num_attention_heads)] if head_scales else [""]
        softmax_inputs = [f"{n}{h}" for h in self.heads for n in ("scores", "masked_scores")]
        _add_fake_quants(self, softmax_inputs, ema_decay, min_width=SCORES_MIN_WIDTH)
        self.names += softmax_inputs
        self.probs_fq = FakeQuant(fixed_range=SOFTMAX_RANGE, name="probs")
        # 1/sqrt(D) is folded into the query projection: one quantized tensor fewer.
        self.query_dense = _GroupedDense(attention.query_dense, groups, ema_decay, True,
                                         1.0 / math.sqrt(attention.head_size), name="query")
        self.key_dense = _GroupedDense(attention.key_dense, groups, ema_decay, True, name="key")
        self.value_dense = _GroupedDense(attention.value_dense, groups, ema_decay, True,
                                         name="value")
        self.attention_output_dense = _GroupedDense(layer.attention_output_dense, groups,
                                                    ema_decay, False, name="attention_output")
        self.intermediate_dense = _GroupedDense(layer.intermediate_dense, groups, ema_decay,
                                                True, name="intermediate")
        self.output_dense = _GroupedDense(layer.output_dense, groups, ema_decay, False,
                                          name="output")
        self.attention_layer_norm = _LayerNorm(
            layer.attention_layer_norm, groups, ema_decay, split_variance,
            name="attention_layer_norm"
        )
        self.output_layer_norm = _LayerNorm(
            layer.output_layer_norm, groups, ema_decay, split_variance, name="output_layer_norm"
        )
        self.attention_sink = None  # see `record_attention`

    def call(self, x, padding, training=None):
        # `x` is the grouped residual stream: a list of [B, S, H_g].
        return self.layer.call_with_ops(x, padding, training, self)  # [[B, S, H_g]]

    def attention(self, layer, x, padding, training):
        return layer.call_with_ops(x, padding, training, self)  # [B, S, N * D]

    def dense(self, layer, x, training):
        dense = getattr(self, f"{layer.name}_dense")
        out = dense(x, training=training)
        if dense.groups_in:  # stream (or plain) -> plain: one range
            return getattr(self, f"{layer.name}_fq")(out, training=training)
        return [getattr(self, f"{layer.name}_{g}_fq")(part, training=training)  # [[B, S, H_g]]
                for g, part in enumerate(out)]

    def residual(self, x, y, site, training):
        return [getattr(self, f"{site}_sum_{g}_fq")(part + out, training=training)
                for g, (part, out) in enumerate(zip(x, y))]  # [[B, S, H_g]]

    def activation(self, fn, x, training):
        return self.activation_fq(fn(x), training=training)

    def _masked_range(self, suffix):
        """`(low, high)` of the masked scores of head `suffix` (`""`: all heads).

        The unmasked scores' `FakeQuant` has the same range (both track the unmasked scores)
        and, in calibration or EMA training, has already seen this batch (on the first one the
        masked range is still unset). Learned ranges (`learn_ranges`) are each their own.
        """
        masked_fq = getattr(self, f"masked_scores{suffix}_fq")
        if masked_fq.range_lr_multiplier:
            return masked_fq.current_range()
        return getattr(self, f"scores{suffix}_fq").current_range()

    def _mask_addend(self, padding, suffix):
        """The additive attention mask (`padding`'s shape) from `padding` (1 at padded keys).

        The float model adds -10000. In int8, any addend below the scores' range saturates
        padded keys at its bottom (softmax maps them to ~0), so the addend is -2x the range's
        width: the mask ADD's two int8 scales then differ 2x, not ~400x. LiteRT's optimized
        int8 ADD and XNNPACK mis-add inputs at that ratio: with -10000 (scale 39.2), padded
        keys came out at the top of the range in 3 of MiniLM's 6 layers
        (docs/lab/export_history.md).
        """
        if getattr(self, f"scores{suffix}_fq").mode == "off":
            return padding * MASK_ADDEND
        range_low, range_high = self._masked_range(suffix)
        low = -2.0 * tf.stop_gradient(range_high - range_low)
        return tf.quantization.fake_quant_with_min_max_vars(padding * low, low, 0.0, num_bits=8)

    def _softmax_input(self, scores, padding, suffix, fq):
        """The quantized, masked attention scores of one head (`suffix`) or of all heads.

        The masked scores' range is the unmasked scores' range: padded keys saturate at its
        bottom. On one per-tensor range that bottom is far below every row's top (MiniLM:
        -136 to -12.5). A single head's range can be ~13 wide (MiniLM layer 5), so a row whose
        top is near the bottom would give each of hundreds of padded keys a weight of up to
        exp(-1). With `head_scales`, each row is shifted to its top among real keys and masked
        again on the range `[-W, 0]` (W the masked scores' range width, so the same int8 step and
        an exact integer SUB): padded keys then sit at -W <= -12 below every row's top.
        """
        scores_fq = getattr(self, f"scores{suffix}_fq")
        masked = fq[f"masked_scores{suffix}"](
            scores + self._mask_addend(padding, suffix), observed=scores
        )
        if not self.head_scales:
            return masked
        top = tf.reduce_max(masked, axis=-1, keepdims=True)  # [B, S, 1]: padded keys are lower
        if scores_fq.mode != "quantize":  # float: softmax is shift-invariant
            return masked - top
        range_low, range_high = self._masked_range(suffix)
        width = tf.stop_gradient(range_high - range_low)

        def on_grid(t):  # [-W, 0]: zero point 127, the scores' step
            return tf.quantization.fake_quant_with_min_max_vars(t, -width, 0.0, num_bits=8)

        shifted = on_grid(masked - top)  # [B, S, S]
        return on_grid(shifted + self._mask_addend(padding, suffix))

    def attend(self, layer, query, key, value, padding, training):
        # B = batch, S = sequence, N = heads, D = head size; `query`, `key` and `value` are
        # fake-quantized [B, S, N * D], `padding` [B, 1, 1, S] is 1 at padded keys.
        fq = _fake_quant_fns(self, self.names, training)
        heads, size = layer.num_attention_heads, layer.head_size
        batch, seq = tf.shape(query)[0], tf.shape(query)[1]
        if self.head_scales:  # one [B, S, S] scores tensor per head, each its own int8 scale
            heads_of = [lambda t, h=h: t[:, :, h * size:(h + 1) * size]  # [B, S, D]
                        for h in range(heads)]
            padding = padding[:, 0]  # [B, 1, S]
        else:  # one [B, N, S, S] tensor
            heads_of = [lambda t: tf.transpose(tf.reshape(t, (batch, seq, heads, size)),
                                               (0, 2, 1, 3))]  # [B, N, S, D]
        contexts, head_probs = [], []
        for suffix, head in zip(self.heads, heads_of):
            scores = fq[f"scores{suffix}"](tf.matmul(head(query), head(key), transpose_b=True))
            masked = self._softmax_input(scores, padding, suffix, fq)
            probs = self.probs_fq(tf.nn.softmax(masked, axis=-1), training=training)
            head_probs.append(probs)  # [B, (N,) S, S]
            probs = layer.dropout_layer(probs, training=training)
            contexts.append(tf.matmul(probs, head(value)))  # [B, (N,) S, D]
        if self.attention_sink is not None:  # [B, N, S, S], on the int8 grid, before dropout
            self.attention_sink(tf.stack(head_probs, axis=1) if self.head_scales else head_probs[0])
        if self.head_scales:
            return fq["context"](tf.concat(contexts, axis=-1))  # [B, S, N * D]
        context = fq["context"](contexts[0])  # [B, N, S, D]
        return tf.reshape(tf.transpose(context, (0, 2, 1, 3)), (batch, seq, heads * size))


class _Encoder(keras.layers.Layer):
    """`BertEncoder` -> the grouped `sequence_output` (and the pooled output when asked).

    `keras_bert.models.bert_encoder.encode` is the wiring; this layer is its ops (`ForwardOps`).
    """

    def __init__(self, encoder, groups, ema_decay, pooled, head_scales=False,
                 split_variance=False, **kwargs):
        super().__init__(**kwargs)
        self.encoder = encoder
        self.pooled = pooled
        self.groups = tuple(tuple(g) for g in groups)
        self.embeddings = _Embeddings(encoder.embeddings, groups, ema_decay, split_variance,
                                      name="embeddings")
        self.num_blocks = len(encoder.transformer_layers)
        for i, layer in enumerate(encoder.transformer_layers):  # attributes: see _add_fake_quants
            setattr(self, f"block_{i}",
                    _Transformer(layer, groups, ema_decay, head_scales, split_variance,
                                 name=layer.name))
        # `1 - keep` gets a fixed range: without one, TF 2.21's converter gave that SUB output
        # the scale of the -10000 product (39.2), so it rounded to 0 and the int8 model
        # attended to padding (found by comparing every tensor with Keras). Each block makes
        # its own addend from it (`_Transformer._mask_addend`).
        self.padding_fq = FakeQuant(fixed_range=(0.0, 1.0), name="padding")
        if pooled:
            self.pooler_dense = _GroupedDense(encoder.pooler.dense, groups, ema_decay, True,
                                              name="pooler_dense")
            self.pooler_fq = FakeQuant(ema_decay, name="pooler_dense")
            self.pooled_fq = FakeQuant(ema_decay, name="pooled_output")

    def call(self, inputs, training=None, all_blocks=False):
        encoder = self.encoder
        blocks = encode(encoder.embeddings, encoder.transformer_layers, inputs,
                        encoder.attention_pattern, self, training)  # [[[B, S, H_g]]] a block
        x = blocks[-1]
        output = x if not self.pooled else (x, self.pool(encoder.pooler, x, training))
        if all_blocks:  # every block's output, its groups put back in dimension order
            order = np.argsort(np.concatenate(self.groups))
            return output, [tf.gather(tf.concat(parts, -1), order, axis=-1) if len(parts) > 1
                            else tf.identity(parts[0]) for parts in blocks]  # [[B, S, H]]
        return output

    def embed(self, layer, token_ids, segment_ids, training):
        return self.embeddings(token_ids, segment_ids, training=training)

    def mask(self, padding_mask, attention_pattern, training):
        # padding_mask alone: quantize_aware refused other attention patterns.
        keep = tf.cast(padding_mask, tf.float32)[:, None, None, :]  # [B, 1, 1, S]
        return self.padding_fq(1.0 - keep, training=training)  # 1 at padded keys

    def block(self, layer, x, padding, training):
        index = self.encoder.transformer_layers.index(layer)
        return getattr(self, f"block_{index}")(x, padding, training=training)  # [[B, S, H_g]]

    def pool(self, pooler, x, training):
        first = [part[:, 0, :] for part in x]  # [[B, H_g]]
        pooled = self.pooler_fq(self.pooler_dense(first, training=training), training=training)
        return self.pooled_fq(pooler.dense.activation(pooled), training=training)  # [B, H]


class _AllBlocks(keras.layers.Layer):
    """`_Encoder`'s call returning every block's output too: a second view of the same layer.

    (A keyword argument to the encoder's own `__call__` does not survive Keras's functional
    graph: the blocks came out "not connected to inputs".)
    """

    def __init__(self, encoder, **kwargs):
        super().__init__(**kwargs)
        self.encoder = encoder

    def call(self, inputs, training=None):
        return self.encoder.call(inputs, training=training, all_blocks=True)


class _Head(keras.layers.Layer):
    """A task's final `Dense`, fake-quantized, returning the task model's output structure."""

    def __init__(self, dense, groups, split_span, ema_decay, **kwargs):
        super().__init__(**kwargs)
        self.split_span = split_span
        self.dense = _GroupedDense(dense, groups, ema_decay, True, name="dense")
        self.logits_fq = FakeQuant(ema_decay, name="logits")

    def call(self, x, training=None):
        # x: a list of [B, (S,) H_g], one per group of `groups`.
        logits = self.logits_fq(self.dense(x, training=training), training=training)
        if self.split_span:  # [B, S, 2] -> two [B, S]
            return {"start_logits": logits[..., 0], "end_logits": logits[..., 1]}
        return logits


def record_attention(qat_model, sink):
    """Makes every block of a `quantize_aware` graph pass its attention probabilities to `sink`.

    On each call of the graph, each block calls `sink(probs)` with its int8 attention
    probabilities (after the softmax's int8 grid, before dropout), float32 `[B, N, S, S]`, in
    block order; `sink=None` stops it. A function rather than a list attribute, so that Keras
    does not track it. `qat_training` distills attention maps with it.
    """
    for layer in qat_model._flatten_layers(include_self=False, recursive=True):
        if isinstance(layer, _Transformer):
            layer.attention_sink = sink


def quantize_aware(model, ema_decay=0.99, profile=None, with_blocks=False):
    """Wraps a keras_bert task model for quantization-aware training and full-int8 export.

    The returned model has the same inputs and outputs as `model` and SHARES its variables
    (training it trains `model`; `model` stays the clean float model). Its forward pass is
    `model`'s, spelled as the ops the TFLite converter emits, with int8 fake quantization where
    full-int8 TFLite quantizes: every Dense kernel per output channel (symmetric, as the
    converter does) and every activation per tensor (asymmetric, EMA-tracked ranges; softmax
    at TFLite's fixed 1/256 scale). Two export-side changes keep float results but help int8:
    `1/sqrt(head_size)` is folded into the query kernel, and the masked attention scores are
    quantized over the range of the unmasked scores, so padded keys saturate at its bottom
    instead of stretching the grid to -10000 (and the int8 mask addend is -2x that range's
    width, not -10000: same saturated result, kernel-safe scales). With a `profile`
    (`keras_bert.export.quantization.int8_profile`), the residual stream is held as one int8 tensor per
    group of hidden dimensions (same float math; outlier dimensions no longer coarsen the
    others' int8 grid), and with its
    `head_scales`, each head's attention scores are their own int8 tensor (one wide head no
    longer coarsens the other heads' softmax inputs), and with its `split_variance`, each
    LayerNorm's variance keeps the outlier group's squares apart (see `_LayerNorm`).

    Before training (or to quantize after training only), calibrate the ranges: set
    `keras_bert.export.quantization.fake_quant.set_fake_quant_mode(qat, "calibrate")`, run `qat.predict`
    on a few real batches (include padded sequences), then set it back to `"quantize"`
    (`calibrate` does this). Convert with
    `keras_bert.export.tflite.conversion.export_tflite(qat, path, seq, "full_int8", inputs)`.

    Args:
        model: a `keras_bert.BertQuestionAnswerer`, `BertClassifier` or `BertTokenClassifier`.
        ema_decay: float, see `FakeQuant`. Defaults to 0.99.
        profile: optional dict from
            `keras_bert.export.quantization.int8_profile.int8_profile(model, inputs)`; `None` keeps one
            int8 scale per stream tensor and per layer's attention scores.
        with_blocks: bool. True also returns a second model on the same layers that outputs
            the pair `(qat's outputs, [every block's fake-quantized output [batch, seq, H]])`
            (for hidden-state distillation, `qat_training`).

    Returns:
        a `keras.Model` taking `{token_ids, segment_ids, padding_mask}` int32 `[batch, seq]`
        (with `with_blocks`, the pair `(qat, blocks_model)`).
    """
    try:
        task = keras_bert.tasks.task_for_model(model)
    except TypeError:
        raise TypeError(
            f"quantize_aware supports BertQuestionAnswerer, BertClassifier and "
            f"BertTokenClassifier, got {type(model).__name__}. Wrap the encoder in one of them."
        ) from None
    dense, split_span = task.head_dense(model), task.split_outputs is not None
    feature = "sequence" if task.head_input == "sequence_output" else "pooled"
    check_quantizable(model, "quantize_aware")
    inputs = {
        name: keras.Input(shape=(None,), dtype="int32", name=name)
        for name in ("token_ids", "segment_ids", "padding_mask")
    }
    width = model.encoder.embeddings.token_embedding.embeddings.shape[-1]
    profile = profile or {}
    groups = [list(g) for g in profile.get("groups", [range(width)])]
    if sorted(d for g in groups for d in g) != list(range(width)):
        raise ValueError(
            f"profile['groups'] must split the {width} hidden dimensions into disjoint lists; "
            "make it with keras_bert.export.quantization.int8_profile.int8_profile(model, inputs) "
            "for this model."
        )
    encoder = _Encoder(model.encoder, groups, ema_decay, feature == "pooled",
                       bool(profile.get("head_scales")), bool(profile.get("split_variance")),
                       name="encoder")
    head_groups = groups if feature == "sequence" else [list(range(width))]
    head = _Head(dense, head_groups, split_span, ema_decay, name="head")

    def task_outputs(features):
        if feature == "pooled":  # one plain [B, H] tensor: a single group of all dimensions
            features = [model.classification_head.dropout_layer(features[1])]
        elif not split_span:
            features = [model.classification_head.dropout_layer(part) for part in features]
        return head(features)

    qat = keras.Model(inputs, task_outputs(encoder(inputs)), name=f"{model.name}_qat")
    # The range deltas now exist as trainable tf.Variables (which a GradientTape watches);
    # they stay out of the trainable weights until `learn_ranges` turns them on.
    for layer in fake_quant_layers(qat, FakeQuant):
        layer.range_delta.trainable = False
    if not with_blocks:
        return qat
    features, blocks = _AllBlocks(encoder, name="all_blocks")(inputs)
    return qat, keras.Model(inputs, (task_outputs(features), blocks),
                            name=f"{model.name}_qat_blocks")


def calibrate(qat_model, inputs, batch_size=16, num_batches=None, only_unseen=False):
    """Sets a `quantize_aware` model's ranges from real `inputs` (a dict of int arrays).

    The first batch sets each range and later ones move it by the layers' EMA. Include padded
    sequences: the attention mask's ranges must see them. With `only_unseen`, only ranges that
    never saw data (e.g. layers a restored checkpoint lacks) are set, while every other fake
    quant quantizes. Leaves the model in `"quantize"` mode. Returns `qat_model`.
    """
    count = len(inputs["token_ids"])
    if count == 0:
        raise ValueError("The calibration set is empty: pass real examples (100+ is usual).")
    if num_batches:
        count = min(count, batch_size * num_batches)
    set_fake_quant_mode(qat_model, "calibrate")
    if only_unseen:
        for layer in fake_quant_layers(qat_model, FakeQuant):
            if layer.fixed_range or float(layer.seen) > 0:
                layer.mode = "quantize"
    qat_model.predict({k: np.asarray(v)[:count] for k, v in inputs.items()},
                      batch_size=batch_size, verbose=0)
    set_fake_quant_mode(qat_model, "quantize")
    return qat_model


def int8_graph(model, representative_inputs, **profile_options):
    """The calibrated full-int8 graph of a float keras_bert task model (post-training).

    Profiles the model's outlier dimensions on the first inputs
    (`keras_bert.export.quantization.int8_profile`; `profile_options` are its `ratio` and `max_groups`), builds `quantize_aware(model, profile=...)` and
    calibrates its ranges on all of `representative_inputs`. Converting the result with
    `keras_bert.export.tflite.conversion.export_tflite(..., quantization="full_int8")` is post-training
    full int8 that keeps the padding mask, the attention scores and the outlier dimensions on usable
    int8 grids (the float graph through the converter loses all three; docs/export.md).
    """
    from keras_bert.export.quantization.int8_profile import int8_profile

    profile = int8_profile(model, representative_inputs, **profile_options)
    return calibrate(quantize_aware(model, profile=profile), representative_inputs)
