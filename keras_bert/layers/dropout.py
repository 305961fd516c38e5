"""`Dropout`: Keras dropout whose random numbers are cheaper on TensorFlow, with and without XLA."""

import keras

from keras_bert.api_export import keras_bert_export
from keras_bert.layers.xla_context import in_xla_context


# Off XLA, masks come from 16 random bits per element: a position is dropped when its bits, as an
# integer, fall below round(rate * 2**16).
_BITS = 16
_LEVELS = 2**_BITS


@keras_bert_export("keras_bert.layers.Dropout")
class Dropout(keras.layers.Dropout):
    """`keras.layers.Dropout` with the same statistics, faster on TensorFlow.

    The drawing of random numbers is most of dropout's cost, and BERT drops a lot: attention
    probabilities are `[batch, heads, seq, seq]`, 28M elements per layer for a MiniLM-sized
    model at batch 16 and seq 384, and dropout was a third of that model's bf16 training step.
    On TensorFlow this layer draws less randomness per element:

    - Under XLA (`jit_compile`), Keras's default generator (Philox) costs about 7 ns per element
      in XLA's CPU lowering (half of an XLA-compiled BERT forward pass at mini size); this layer
      draws float uniforms with ThreeFry there, about 3.5x faster.
    - Elsewhere (graph and eager), TensorFlow's native Philox costs about 2.7 ns per 32-bit
      draw on two cores; this layer splits each draw into two 16-bit integers and drops a
      position when its integer is below `t = round(rate * 65536)`, half the draws and no
      integer-to-float conversion. The drop probability is `t / 65536` (within 8e-6 of `rate`)
      and kept values are scaled by `65536 / (65536 - t)`, so `E[output] = inputs` exactly.
      The mask is applied as one multiplication by `{0, scale}`, which is also the backward
      pass.

    Other backends (JAX, PyTorch) get exactly `keras.layers.Dropout`. The seed comes from the
    layer's `SeedGenerator`, so checkpoints that restore it resume the same masks.

    Args: as `keras.layers.Dropout` (`noise_shape` is honoured on every path).
    """

    def call(self, inputs, training=False):
        if not (training and 0 < self.rate < 1) or keras.backend.backend() != "tensorflow":
            return super().call(inputs, training=training)
        threshold = round(self.rate * _LEVELS)
        if not 0 < threshold < _LEVELS:  # a rate within 1 / 2**17 of 0 or 1
            return super().call(inputs, training=training)
        import tensorflow as tf

        seed = self.seed_generator.next()
        # Stateless ops want an int32 seed; the generator's state may be int64.
        seed = tf.cast(tf.math.floormod(seed, tf.int32.max - 1), tf.int32)
        shape = tf.shape(inputs)
        if self.noise_shape is not None:
            shape = [shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]
        if in_xla_context():
            uniform = tf.random.stateless_uniform(shape, seed, alg="threefry", dtype=tf.float32)
            keep = uniform >= self.rate  # [..] Bernoulli(1 - rate)
            scale = tf.cast(1.0 / (1.0 - self.rate), inputs.dtype)
            return tf.where(keep, inputs * scale, tf.zeros_like(inputs))
        size = tf.reduce_prod(shape)
        draws = tf.random.stateless_uniform(
            [(size + 1) // 2], seed, minval=None, maxval=None, dtype=tf.uint32
        )  # full-range 32-bit integers, two 16-bit ones each
        bits = tf.reshape(tf.bitcast(draws, tf.uint16), [-1])[:size]
        keep = tf.reshape(bits, shape) >= threshold  # [..] Bernoulli(1 - t / 65536)
        scale = tf.constant(_LEVELS / (_LEVELS - threshold), inputs.dtype)
        return inputs * tf.where(keep, scale, tf.zeros((), inputs.dtype))
