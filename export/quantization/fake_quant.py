"""`FakeQuant`: int8 fake quantization of one activation tensor, with an EMA-tracked range."""

import keras
import tensorflow as tf

# What a `FakeQuant` layer does when called:
#   "quantize": round to the int8 grid of its range (training updates the range by EMA first);
#   "calibrate": update the range from the batch (EMA), pass values through unchanged;
#   "off": pass values through unchanged (the float model).
MODES = ("quantize", "calibrate", "off")

# TFLite's int8 SOFTMAX output is fixed at scale 1/256, zero point -128: the range [0, 255/256].
SOFTMAX_RANGE = (0.0, 255.0 / 256.0)

# The narrowest range of the attention scores' int8 grid: a padded key saturated at its bottom
# gets probability exp(-12) = 6e-6 of the row's top, 0 on the softmax's 1/256 grid, and 384 of
# them add 0.2 % to its denominator. MiniLM's narrowest calibrated range is 13.7 wide.
SCORES_MIN_WIDTH = 12.0


def check_quantizable(model, caller):
    """Raises `ValueError` unless `model.encoder` is one the int8 graph spells exactly.

    The int8 graph (`quantize_aware`, and `int8_profile`, which measures it) builds each
    layer's attention mask from `padding_mask` alone: a `causal` or `hide_next` encoder would
    silently become bidirectional there, and its int8 model would answer another question.
    """
    pattern = getattr(model.encoder, "attention_pattern", "bidirectional")
    if pattern != "bidirectional":
        raise ValueError(
            f"{caller}: model.encoder has attention_pattern={pattern!r}; the int8 graph only "
            "spells 'bidirectional' attention. Export this model as float32, float16 or "
            "dynamic_int8 instead."
        )


def _fake_quant_learned_range(x, low, high):
    """`fake_quant_with_min_max_vars` whose range ends get the LSQ gradient.

    TensorFlow's own gradient for the range ends only counts clipped values, so a range can
    only grow. LSQ (Esser et al. 2020, "Learned Step Size Quantization") also differentiates
    the rounding: with `y = low + step * round(u)`, `u = (x - low) / step`,
    `step = (high - low) / 255` (on TensorFlow's grid, nudged to hold 0) and a
    straight-through `round`, an in-range value gives
    `dy/dhigh = (round(u) - u) / 255 = -dy/dlow`; a value clipped to `low` (`high`) gives
    `dy/dlow = 1` (`dy/dhigh = 1`). The range-end gradients are scaled by
    `1 / sqrt(size(x) * 127)` (LSQ's scale), so that they do not dominate the global gradient
    norm that clipping sees; Adam's steps do not depend on that scale.
    """

    @tf.custom_gradient
    def quantize(x, low, high):
        y = tf.quantization.fake_quant_with_min_max_vars(x, low, high, num_bits=8,
                                                         narrow_range=False)
        # The op's grid: the range nudged so that 0 is a grid point, as TensorFlow does.
        step = (high - low) / 255.0
        zero_point = tf.round(tf.clip_by_value(-low / step, 0.0, 255.0))
        below, above = x < -zero_point * step, x > (255.0 - zero_point) * step
        # What the gradient needs of x, kept in bfloat16 instead of x itself (half the memory a
        # fake quant holds for the backward pass): round(u) - u, in [-0.5, 0.5] for an in-range
        # value, -2 for one clipped to the bottom and 2 for one clipped to the top.
        residual = tf.cast(tf.where(below, -2.0, tf.where(above, 2.0, (y - x) / step)),
                           tf.bfloat16)
        size = tf.cast(tf.size(x), tf.float32)

        def grad(dy):
            r = tf.cast(residual, dy.dtype)
            inside = tf.abs(r) <= 1.0
            rounding = tf.where(inside, r, 0.0) / 255.0
            d_low = tf.where(r < -1.0, 1.0, -rounding)
            d_high = tf.where(r > 1.0, 1.0, rounding)
            scale = tf.math.rsqrt(size * 127.0)
            d_range = (scale * tf.reduce_sum(dy * d_low), scale * tf.reduce_sum(dy * d_high))
            # x's gradient waits for the range's: otherwise the two sums, needed only when the
            # optimizer runs, may be left until the end of the backward pass, holding every
            # fake quant's dy until then (over 24 GB on MiniLM's QAT graph at batch 16).
            with tf.control_dependencies(d_range):
                d_x = dy * tf.cast(inside, dy.dtype)
            return (d_x, *d_range)

        return y, grad

    return quantize(x, low, high)


def _quantize_kernel(kernel):
    """Per-output-channel symmetric int8 rounding of a `[in, out]` kernel (straight-through)."""
    scale = tf.reduce_max(tf.abs(kernel), axis=0, keepdims=True) / 127.0  # [1, out]
    scale = tf.where(scale > 0.0, scale, tf.ones_like(scale))
    rounded = tf.round(kernel / scale) * scale
    return kernel + tf.stop_gradient(rounded - kernel)


class WeightFakeQuant(keras.layers.Layer):
    """Rounds a Dense kernel `[in, out]` to int8 per output channel, as the converter will.

    The TFLite converter quantizes FULLY_CONNECTED weights symmetrically per output channel
    (one scale per output row, zero point 0; scale max|w| / 127 is its documented scheme), so
    the converted weights land on the same grid. The
    gradient passes straight through. `tf.quantization.fake_quant_with_min_max_vars_per_channel`
    is not used: it quantizes the last axis, and TF 2.21's converter then fails on the transposed
    FULLY_CONNECTED weights ("mismatched quantized axes"). Has no weights; `mode` as `FakeQuant`
    (only `"off"` differs: the kernel passes unchanged).
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.mode = "quantize"

    def call(self, kernel):
        if self.mode == "off":
            return kernel
        return _quantize_kernel(kernel)


class FakeQuant(keras.layers.Layer):
    """Per-tensor asymmetric int8 fake quantization, as TFLite quantizes activations.

    Holds the range `[range_min, range_max]` as non-trainable weights. The first batch seen in
    training or calibration sets it; later ones move it by an exponential moving average
    (`ema_decay`). The range always contains 0 (the int8 zero point must be exact). In
    `"quantize"` mode, values are rounded with `tf.quantization.fake_quant_with_min_max_vars`
    (straight-through gradient inside the range, zero outside), which the TFLite converter reads
    as the tensor's quantization parameters.

    Args:
        ema_decay: float in [0, 1). Weight of the old range in each update. Defaults to 0.99.
        fixed_range: optional `(min, max)`; then the range never moves (e.g. softmax outputs).
        min_width: optional float; a tracked range narrower than this is widened downwards
            (softmax inputs: a value saturated at the bottom then gets probability
            exp(-min_width), i.e. 0 on the int8 grid, as padded keys must).

    Call arguments:
        x: float tensor to quantize.
        observed: optional float tensor whose range is tracked instead of `x`'s (the attention
            scores before the padding mask: masked entries then saturate at the range's bottom).
        training: bool; ranges move in training and in `"calibrate"` mode.

    Returns:
        float tensor of the shape of `x`.
    """

    def __init__(self, ema_decay=0.99, fixed_range=None, min_width=None, **kwargs):
        super().__init__(**kwargs)
        if not 0.0 <= ema_decay < 1.0:
            raise ValueError(f"ema_decay must be in [0, 1), got {ema_decay}.")
        if min_width is not None and not min_width > 0.0:
            raise ValueError(f"min_width must be positive or None, got {min_width}.")
        self.ema_decay = ema_decay
        self.fixed_range = fixed_range
        self.min_width = min_width
        self.mode = "quantize"
        self.frozen = False  # training leaves the range as it is (see `freeze_ranges`)
        self.range_lr_multiplier = 0.0  # > 0: the range is learned (see `learn_ranges`)

    def build(self, x_shape, observed_shape=None):
        low, high = self.fixed_range or (0.0, 0.0)
        self.range_min = self.add_weight(
            name="range_min", shape=(), initializer=keras.initializers.Constant(low),
            trainable=False,
        )
        self.range_max = self.add_weight(
            name="range_max", shape=(), initializer=keras.initializers.Constant(high),
            trainable=False,
        )
        self.seen = self.add_weight(
            name="seen", shape=(), initializer="zeros", trainable=False
        )
        # Learned moves of [range_min, range_max] in units of the range's width / multiplier.
        # Created trainable: a GradientTape only watches trainable tf.Variables, and a Keras
        # variable built symbolically gets its tf.Variable later, with the flag it has then.
        # `quantize_aware` takes them out of the trainable weights; `learn_ranges` puts them in.
        self.range_delta = self.add_weight(
            name="range_delta", shape=(2,), initializer="zeros", trainable=True
        )
        self.built = True

    def current_range(self):
        """`(low, high)` float tensors: the range, moved by the learned deltas if learning."""
        low, high = tf.convert_to_tensor(self.range_min), tf.convert_to_tensor(self.range_max)
        if not self.range_lr_multiplier:
            return low, high
        width = tf.stop_gradient(high - low)  # frozen while learning: a constant
        low = tf.minimum(low + self.range_lr_multiplier * width * self.range_delta[0], 0.0)
        high = tf.maximum(high + self.range_lr_multiplier * width * self.range_delta[1], 0.0)
        if self.min_width is not None:
            low = tf.minimum(low, high - self.min_width)
        return low, high

    def _update_range(self, observed):
        low = tf.minimum(tf.reduce_min(observed), 0.0)
        high = tf.maximum(tf.reduce_max(observed), 0.0)
        decay = self.ema_decay * tf.cast(self.seen > 0.0, tf.float32)  # 0 on the first batch
        new_min = decay * self.range_min + (1.0 - decay) * low
        new_max = decay * self.range_max + (1.0 - decay) * high
        if self.min_width is not None:
            new_min = tf.minimum(new_min, new_max - self.min_width)
        self.range_min.assign(new_min)
        self.range_max.assign(new_max)
        self.seen.assign(1.0)
        return new_min, new_max

    def call(self, x, observed=None, training=None):
        if self.mode not in MODES:
            raise ValueError(f"FakeQuant mode must be one of {MODES}, got {self.mode!r}.")
        if self.mode == "off":
            return x
        x = tf.cast(x, tf.float32)
        low, high = self.current_range()
        if self.fixed_range is None and (
            self.mode == "calibrate" or (training and not self.frozen)
        ):
            # Ranges are statistics, not parameters: no gradient flows into them.
            observed = x if observed is None else observed
            low, high = self._update_range(tf.stop_gradient(observed))
        if self.mode == "calibrate":
            return x
        if self.range_lr_multiplier:
            return _fake_quant_learned_range(x, low, high)
        return tf.quantization.fake_quant_with_min_max_vars(
            x, low, high, num_bits=8, narrow_range=False
        )

    def compute_output_shape(self, x_shape, observed_shape=None):
        return tuple(x_shape)

    def get_config(self):
        config = super().get_config()
        config.update({"ema_decay": self.ema_decay, "fixed_range": self.fixed_range,
                       "min_width": self.min_width})
        return config


def fake_quant_layers(model, types=None):
    """Every `FakeQuant` and `WeightFakeQuant` layer of `model` (or only those of `types`)."""
    types = types or (FakeQuant, WeightFakeQuant)
    return [layer for layer in model._flatten_layers(include_self=False, recursive=True)
            if isinstance(layer, types)]


def _forget_compiled_functions(model):
    # Keras' compiled train/predict functions baked in the layers' Python state when traced.
    for name in ("train_function", "test_function", "predict_function"):
        if hasattr(model, name):
            setattr(model, name, None)


def freeze_ranges(model, frozen=True):
    """Stops (or restarts) training from moving `model`'s `FakeQuant` ranges.

    QAT then trains the weights against the calibrated ranges. Ranges that follow every
    training batch drifted on MiniLM SST-2: LayerNorm-internal ranges grew to ~5e4 within 300
    steps and the fake-quant model fell to chance while its float weights stayed at 0.89.
    `"calibrate"` mode still sets ranges. Also drops the model's compiled functions. Returns
    the number of layers changed.
    """
    layers = fake_quant_layers(model, FakeQuant)
    for layer in layers:
        layer.frozen = frozen
    _forget_compiled_functions(model)
    return len(layers)


def learn_ranges(model, multiplier):
    """Makes `model`'s `FakeQuant` ranges trainable parameters (LSQ), or bakes them in.

    With `multiplier > 0`, each range that is not fixed is frozen (no EMA) and gets a trainable
    `range_delta`: its ends move by `multiplier * width * delta`, `width` the calibrated
    range's, so Adam at learning rate `lr` moves an end by up to about `lr * multiplier * width`
    a step. The gradient is LSQ's (`_fake_quant_learned_range`): rounding error pulls a range
    in, clipping pushes it out. With `multiplier == 0`, the learned moves are written into
    `range_min` / `range_max` (what the converter reads), the deltas reset to 0 and made
    non-trainable again. Drops the model's compiled functions. Returns the `range_delta`
    variables made trainable (none when baking), e.g. to exempt them from weight decay.
    """
    if multiplier < 0.0:
        raise ValueError(f"multiplier must be >= 0, got {multiplier}.")
    deltas = []
    for layer in fake_quant_layers(model, FakeQuant):
        if layer.fixed_range is not None:
            continue
        if multiplier:
            layer.frozen = True
            layer.range_lr_multiplier = float(multiplier)
            layer.range_delta.trainable = True
            deltas.append(layer.range_delta)
        elif layer.range_lr_multiplier:
            low, high = layer.current_range()
            layer.range_min.assign(low)
            layer.range_max.assign(high)
            layer.range_delta.assign([0.0, 0.0])
            layer.range_delta.trainable = False
            layer.range_lr_multiplier = 0.0
    _forget_compiled_functions(model)
    return deltas


def set_fake_quant_mode(model, mode):
    """Sets every `FakeQuant` and `WeightFakeQuant` layer of `model` to `mode` (see `MODES`).

    Also drops the model's compiled train/predict functions, which baked in the old mode.
    Returns the number of layers changed.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}.")
    layers = fake_quant_layers(model)
    for layer in layers:
        layer.mode = mode
    _forget_compiled_functions(model)
    return len(layers)
