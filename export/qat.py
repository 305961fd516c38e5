"""`quantize_aware`: a keras_bert model with int8 fake quantization where TFLite quantizes."""

import math
import os
import tempfile

import keras
import tensorflow as tf

import keras_bert
from export.fake_quant import SOFTMAX_RANGE
from export.fake_quant import FakeQuant
from export.fake_quant import WeightFakeQuant

# The padding-mask addend of keras_bert's SelfAttention (google-research/bert's value).
_MASK_ADDEND = -10000.0


def _dense(x, layer, weight_fq, fold=1.0):
    """`x @ kernel + bias` with the kernel on TFLite's per-channel int8 grid; `fold` scales both."""
    kernel = weight_fq(tf.convert_to_tensor(layer.kernel) * fold)  # [in, out]
    return tf.matmul(x, kernel) + tf.convert_to_tensor(layer.bias) * fold


def _add_fake_quants(layer, names, ema_decay):
    # Plain attributes, not a dict: tf.train.Checkpoint does not see into Keras' tracked dicts,
    # and the ranges must be saved with the weights.
    for name in names:
        setattr(layer, f"{name}_fq", FakeQuant(ema_decay, name=name))


def _fake_quant_fns(layer, names, training):
    """`{name: fn(tensor, **kwargs)}` calling the layer's `<name>_fq` in this training mode."""
    return {
        n: (lambda t, q=getattr(layer, f"{n}_fq"), **kw: q(t, training=training, **kw))
        for n in names
    }


class _LayerNorm(keras.layers.Layer):
    """LayerNorm spelled as int8-friendly TFLite ops, each output fake-quantized.

    The sum of squares is one int8 BATCH_MATMUL per token (`c . c`, accumulated in int32), not
    a squared `[B, S, H]` tensor: residual outliers (|c| ~ 30) would stretch that tensor's grid
    to ~900 / 255, rounding every ordinary square to 0. `1/H` moves into the epsilon and
    `sqrt(H)` into gamma, so no op is spent on them.
    """

    def __init__(self, layer, ema_decay, **kwargs):
        super().__init__(**kwargs)
        self.layer = layer
        self.names = ("centered", "sum_of_squares", "inverse", "normalized", "scaled", "output")
        _add_fake_quants(self, self.names, ema_decay)

    def call(self, x, training=None):
        fq = _fake_quant_fns(self, self.names, training)
        width = x.shape[-1]
        centered = fq["centered"](x - tf.reduce_mean(x, axis=-1, keepdims=True))  # [B, S, H]
        # [B, S, 1, H] @ [B, S, H, 1] -> [B, S, 1, 1]: H * variance.
        sum_of_squares = tf.matmul(centered[..., None, :], centered[..., :, None])[..., 0]
        sum_of_squares = fq["sum_of_squares"](sum_of_squares)  # [B, S, 1]
        # max(), not LayerNorm's "+ epsilon": an int8 ADD of a ~1e-10 constant came out wrong by
        # ~9 grid steps in TF 2.21's kernels (QuantizationDebugger); max() keeps the scale.
        inverse = fq["inverse"](
            tf.math.rsqrt(tf.maximum(sum_of_squares, width * self.layer.epsilon))
        )  # [B, S, 1]
        normalized = fq["normalized"](centered * inverse)  # [B, S, H], 1/sqrt(H) of LayerNorm's
        gamma = tf.convert_to_tensor(self.layer.gamma) * math.sqrt(width)
        scaled = fq["scaled"](normalized * gamma)
        return fq["output"](scaled + tf.convert_to_tensor(self.layer.beta))


class _Embeddings(keras.layers.Layer):
    """`BertEmbeddings` with int8 tables and fake-quantized sums."""

    def __init__(self, layer, ema_decay, **kwargs):
        super().__init__(**kwargs)
        self.layer = layer
        self.token_fq = FakeQuant(ema_decay, name="token_table")
        self.segment_fq = FakeQuant(ema_decay, name="segment_table")
        self.position_fq = FakeQuant(ema_decay, name="position_table")
        self.sum_fq = FakeQuant(ema_decay, name="token_segment_sum")
        self.total_fq = FakeQuant(ema_decay, name="embedding_sum")
        self.layer_norm = _LayerNorm(layer.layer_norm, ema_decay, name="layer_norm")

    def call(self, token_ids, segment_ids, training=None):
        layer = self.layer
        seq = tf.shape(token_ids)[1]
        # The tables are constants of the TFLite graph, quantized per tensor by their range.
        tokens = tf.gather(self.token_fq(layer.token_embedding.embeddings, training=training),
                           token_ids)  # [B, S, H]
        segments = tf.gather(
            self.segment_fq(layer.segment_embedding.embeddings, training=training), segment_ids
        )  # [B, S, H]
        positions = self.position_fq(
            tf.convert_to_tensor(layer.position_embeddings)[:seq], training=training
        )  # [S, H]
        x = self.sum_fq(tokens + segments, training=training)
        x = self.total_fq(x + positions[None], training=training)  # [B, S, H]
        x = self.layer_norm(x, training=training)
        return layer.dropout_layer(x, training=training)


class _Transformer(keras.layers.Layer):
    """`TransformerEncoder` (with its `SelfAttention`) and fake quantization after every op."""

    def __init__(self, layer, ema_decay, **kwargs):
        super().__init__(**kwargs)
        self.layer = layer
        self.names = ("query", "key", "value", "scores", "masked_scores", "context",
                      "attention_output", "attention_sum", "intermediate", "activation",
                      "output", "output_sum")
        _add_fake_quants(self, self.names, ema_decay)
        self.probs_fq = FakeQuant(fixed_range=SOFTMAX_RANGE, name="probs")
        self.kernels = ("query", "key", "value", "attention_output", "intermediate", "output")
        for n in self.kernels:
            setattr(self, f"{n}_kernel_fq", WeightFakeQuant(name=f"{n}_kernel"))
        self.attention_layer_norm = _LayerNorm(
            layer.attention_layer_norm, ema_decay, name="attention_layer_norm"
        )
        self.output_layer_norm = _LayerNorm(
            layer.output_layer_norm, ema_decay, name="output_layer_norm"
        )

    def call(self, x, mask_addend, training=None):
        # B = batch, S = sequence, H = hidden, N = heads, D = head size, I = intermediate.
        layer, attention = self.layer, self.layer.attention
        fq = _fake_quant_fns(self, self.names, training)
        wq = {n: getattr(self, f"{n}_kernel_fq") for n in self.kernels}
        heads, size = attention.num_attention_heads, attention.head_size
        batch, seq = tf.shape(x)[0], tf.shape(x)[1]

        def split(t):
            return tf.transpose(tf.reshape(t, (batch, seq, heads, size)), (0, 2, 1, 3))

        # 1/sqrt(D) is folded into the query projection: one quantized tensor fewer.
        query = split(fq["query"](_dense(x, attention.query_dense, wq["query"], 1.0 / math.sqrt(size))))
        key = split(fq["key"](_dense(x, attention.key_dense, wq["key"])))  # [B, N, S, D]
        value = split(fq["value"](_dense(x, attention.value_dense, wq["value"])))  # [B, N, S, D]
        scores = fq["scores"](tf.matmul(query, key, transpose_b=True))  # [B, N, S, S]
        # The range follows the unmasked scores: padded keys saturate at its bottom, which
        # softmax still maps to 0, instead of stretching the int8 grid down to -10000.
        masked = fq["masked_scores"](scores + mask_addend, observed=scores)
        probs = self.probs_fq(tf.nn.softmax(masked, axis=-1), training=training)
        probs = attention.dropout_layer(probs, training=training)
        context = fq["context"](tf.matmul(probs, value))  # [B, N, S, D]
        context = tf.reshape(tf.transpose(context, (0, 2, 1, 3)), (batch, seq, heads * size))

        attended = fq["attention_output"](_dense(context, layer.attention_output_dense, wq["attention_output"]))
        attended = layer.dropout_layer(attended, training=training)
        x = self.attention_layer_norm(fq["attention_sum"](x + attended), training=training)

        hidden = fq["intermediate"](_dense(x, layer.intermediate_dense, wq["intermediate"]))  # [B, S, I]
        hidden = fq["activation"](layer.activation(hidden))
        hidden = fq["output"](_dense(hidden, layer.output_dense, wq["output"]))  # [B, S, H]
        hidden = layer.dropout_layer(hidden, training=training)
        return self.output_layer_norm(fq["output_sum"](x + hidden), training=training)


class _Encoder(keras.layers.Layer):
    """`BertEncoder` -> `sequence_output` `[B, S, H]` (and the pooled output when asked)."""

    def __init__(self, encoder, ema_decay, pooled, **kwargs):
        super().__init__(**kwargs)
        self.encoder = encoder
        self.pooled = pooled
        self.embeddings = _Embeddings(encoder.embeddings, ema_decay, name="embeddings")
        self.num_blocks = len(encoder.transformer_layers)
        for i, layer in enumerate(encoder.transformer_layers):  # attributes: see _add_fake_quants
            setattr(self, f"block_{i}", _Transformer(layer, ema_decay, name=layer.name))
        # Both mask tensors get fixed ranges: without one on `1 - keep`, TF 2.21's converter
        # gave that SUB output the scale of the -10000 product (39.2), so it rounded to 0 and
        # the int8 model attended to padding (found by comparing every tensor with Keras).
        self.padding_fq = FakeQuant(fixed_range=(0.0, 1.0), name="padding")
        self.mask_fq = FakeQuant(fixed_range=(_MASK_ADDEND, 0.0), name="mask_addend")
        if pooled:
            self.pooler_fq = FakeQuant(ema_decay, name="pooler_dense")
            self.pooled_fq = FakeQuant(ema_decay, name="pooled_output")
            self.pooler_wq = WeightFakeQuant(name="pooler_kernel")

    def call(self, inputs, training=None):
        x = self.embeddings(inputs["token_ids"], inputs["segment_ids"], training=training)
        keep = tf.cast(inputs["padding_mask"], tf.float32)[:, None, None, :]  # [B, 1, 1, S]
        padding = self.padding_fq(1.0 - keep, training=training)  # 1 at padded keys
        mask_addend = self.mask_fq(padding * _MASK_ADDEND, training=training)
        for i in range(self.num_blocks):
            x = getattr(self, f"block_{i}")(x, mask_addend, training=training)  # [B, S, H]
        if not self.pooled:
            return x
        dense = self.encoder.pooler.dense
        pooled = self.pooler_fq(_dense(x[:, 0, :], dense, self.pooler_wq), training=training)  # [B, H]
        return x, self.pooled_fq(dense.activation(pooled), training=training)


class _Head(keras.layers.Layer):
    """A task's final `Dense`, fake-quantized, returning the task model's output structure."""

    def __init__(self, dense, split_span, ema_decay, **kwargs):
        super().__init__(**kwargs)
        self.dense = dense
        self.split_span = split_span
        self.logits_fq = FakeQuant(ema_decay, name="logits")
        self.kernel_wq = WeightFakeQuant(name="kernel")

    def call(self, x, training=None):
        logits = self.logits_fq(_dense(x, self.dense, self.kernel_wq), training=training)
        if self.split_span:  # [B, S, 2] -> two [B, S]
            return {"start_logits": logits[..., 0], "end_logits": logits[..., 1]}
        return logits


def quantize_aware(model, ema_decay=0.99):
    """Wraps a keras_bert task model for quantization-aware training and full-int8 export.

    The returned model has the same inputs and outputs as `model` and SHARES its variables
    (training it trains `model`; `model` stays the clean float model). Its forward pass is
    `model`'s, spelled as the ops the TFLite converter emits, with int8 fake quantization where
    full-int8 TFLite quantizes: every Dense kernel per output channel (symmetric, as the
    converter does) and every activation per tensor (asymmetric, EMA-tracked ranges; softmax
    at TFLite's fixed 1/256 scale). Two export-side changes keep float results but help int8:
    `1/sqrt(head_size)` is folded into the query kernel, and the masked attention scores are
    quantized over the range of the unmasked scores, so padded keys saturate at its bottom
    instead of stretching the grid to -10000.

    Before training (or to quantize after training only), calibrate the ranges: set
    `export.fake_quant.set_fake_quant_mode(qat, "calibrate")`, run `qat.predict` on a few real
    batches (include padded sequences), then set it back to `"quantize"`. Convert with
    `convert_full_int8`.

    Args:
        model: a `keras_bert.BertQuestionAnswerer`, `BertClassifier` or `BertTokenClassifier`.
        ema_decay: float, see `FakeQuant`. Defaults to 0.99.

    Returns:
        a `keras.Model` taking `{token_ids, segment_ids, padding_mask}` int32 `[batch, seq]`.
    """
    if isinstance(model, keras_bert.BertQuestionAnswerer):
        dense, split_span, feature = model.span_head.dense, True, "sequence"
    elif isinstance(model, keras_bert.BertTokenClassifier):
        dense, split_span, feature = model.classification_head.dense, False, "sequence"
    elif isinstance(model, keras_bert.BertClassifier):
        dense, split_span, feature = model.classification_head.dense, False, "pooled"
    else:
        raise TypeError(
            f"quantize_aware supports BertQuestionAnswerer, BertClassifier and "
            f"BertTokenClassifier, got {type(model).__name__}. Wrap the encoder in one of them."
        )
    inputs = {
        name: keras.Input(shape=(None,), dtype="int32", name=name)
        for name in ("token_ids", "segment_ids", "padding_mask")
    }
    encoder = _Encoder(model.encoder, ema_decay, pooled=feature == "pooled", name="encoder")
    features = encoder(inputs)
    if feature == "pooled":
        features = model.classification_head.dropout_layer(features[1])
    elif not split_span:
        features = model.classification_head.dropout_layer(features)
    outputs = _Head(dense, split_span, ema_decay, name="head")(features)
    return keras.Model(inputs, outputs, name=f"{model.name}_qat")


# The export-wide TFLite input names, and the model inputs they feed.
TFLITE_INPUTS = {"ids": "token_ids", "mask": "padding_mask", "segment_ids": "segment_ids"}


def convert_full_int8(model, path, sequence_length, representative_inputs, batch_size=1):
    """Converts a keras_bert model (float or `quantize_aware`) to a full-int8 `.tflite` file.

    Every op is a TFLITE_BUILTINS_INT8 builtin (conversion fails otherwise); inputs are int32
    `ids`, `mask`, `segment_ids` `[batch_size, sequence_length]`, outputs stay float32 (the
    model's output names). Fake-quantized tensors keep their trained ranges; the converter
    calibrates the others on `representative_inputs`, which must include padded sequences (the
    attention mask's -10000 addend is then inside the calibrated range of a float model).

    Args:
        model: a Keras model taking `{token_ids, segment_ids, padding_mask}`.
        path: output `.tflite` path.
        sequence_length, batch_size: the fixed input shape.
        representative_inputs: dict of int arrays `[num_examples, sequence_length]` with the
            model's input names.

    Returns:
        `path`.
    """
    names = {"token_ids", "segment_ids", "padding_mask"}
    if set(representative_inputs) != names:
        raise ValueError(
            f"representative_inputs must have exactly the keys {sorted(names)}, got "
            f"{sorted(representative_inputs)}."
        )
    count = len(representative_inputs["token_ids"])
    for name, value in representative_inputs.items():
        if tuple(value.shape[1:]) != (sequence_length,) or len(value) != count:
            raise ValueError(
                f"representative_inputs[{name!r}] has shape {value.shape}; expected "
                f"[{count}, {sequence_length}] like token_ids. Pad or cut to sequence_length."
            )
    if count < batch_size:
        raise ValueError(f"Need at least batch_size={batch_size} representative examples.")

    def serve(ids, mask, segment_ids):
        outputs = model(
            {"token_ids": ids, "segment_ids": segment_ids, "padding_mask": mask}, training=False
        )
        return outputs if isinstance(outputs, dict) else {"logits": outputs}

    spec = {n: tf.TensorSpec([batch_size, sequence_length], tf.int32, name=n) for n in TFLITE_INPUTS}
    archive = keras.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint("serving_default", serve, input_signature=[spec["ids"], spec["mask"],
                                                                    spec["segment_ids"]])

    def representative_dataset():
        for start in range(0, count - batch_size + 1, batch_size):
            yield {
                tflite_name: representative_inputs[model_name][start:start + batch_size]
                .astype("int32")
                for tflite_name, model_name in TFLITE_INPUTS.items()
            }

    with tempfile.TemporaryDirectory() as saved_model_dir:
        archive.write_out(saved_model_dir, verbose=False)
        converter = tf.lite.TFLiteConverter.from_saved_model(saved_model_dir)
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.representative_dataset = representative_dataset
        flatbuffer = converter.convert()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as f:
        f.write(flatbuffer)
    return path
