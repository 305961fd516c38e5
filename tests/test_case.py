"""`TestCase`: contract helpers shared by layer and model tests (one line per contract)."""

import os
import tempfile
import unittest

import keras
import numpy as np

# The tiny test config: pairwise-distinct sizes so a swapped axis fails a shape check instead of
# passing by accident. Used with batch 3 and sequence length 7.
TINY = dict(
    vocab_size=23,
    hidden_size=8,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=12,
    max_position_embeddings=16,
    type_vocab_size=2,
    hidden_dropout_prob=0.0,
    attention_probs_dropout_prob=0.0,
)
BATCH, SEQ = 3, 7


def tiny_inputs(seed=0, batch=BATCH, seq=SEQ, lengths=(7, 5, 2)):
    """Encoder inputs with random ids and right-padding to `lengths` per row."""
    rng = np.random.default_rng(seed)
    padding_mask = (np.arange(seq)[None, :] < np.asarray(lengths)[:, None]).astype("int32")
    return {
        "token_ids": (rng.integers(1, TINY["vocab_size"], (batch, seq)) * padding_mask).astype(
            "int32"
        ),
        "segment_ids": (rng.integers(0, 2, (batch, seq)) * padding_mask).astype("int32"),
        "padding_mask": padding_mask,
    }


def randomize_weights(model, seed=0, scale=0.5):
    """Replaces every weight with N(0, scale) noise, so zero-initialized biases are tested too."""
    rng = np.random.default_rng(seed)
    for variable in model.weights:
        variable.assign(rng.normal(0.0, scale, variable.shape).astype(variable.dtype))


def to_numpy(tree):
    return keras.tree.map_structure(lambda x: np.asarray(keras.ops.convert_to_numpy(x)), tree)


class TestCase(unittest.TestCase):
    """Adds the keras_bert contracts to `unittest.TestCase`."""

    def setUp(self):
        super().setUp()
        keras.utils.set_random_seed(1337)

    def assertAllClose(self, actual, expected, atol=1e-6, rtol=0.0, msg=None):
        keras.tree.map_structure(
            lambda a, e: np.testing.assert_allclose(
                np.asarray(keras.ops.convert_to_numpy(a)),
                np.asarray(keras.ops.convert_to_numpy(e)),
                atol=atol,
                rtol=rtol,
                err_msg=msg or "",
            ),
            actual,
            expected,
        )

    def run_serialization_test(self, instance):
        """`get_config` round-trips through `from_config` and `serialize_keras_object`."""
        config = instance.get_config()
        revived = instance.__class__.from_config(config)
        self.assertEqual(revived.get_config(), config)
        serialized = keras.saving.serialize_keras_object(instance)
        revived = keras.saving.deserialize_keras_object(serialized)
        self.assertEqual(keras.saving.serialize_keras_object(revived), serialized)

    def run_layer_test(
        self, layer, inputs, expected_output_shape, expected_num_weights, gradient_free=()
    ):
        """Builds, runs eagerly and symbolically, and trains one step through `layer`.

        `inputs` is a tuple of positional call arguments; `expected_output_shape` is a shape or a
        structure of shapes. `gradient_free` lists path suffixes of weights whose gradient is
        zero by construction (e.g. attention key biases: softmax ignores a per-query shift).
        """
        outputs = layer(*inputs)
        shapes = keras.tree.map_structure(lambda x: tuple(x.shape), outputs)
        self.assertEqual(shapes, expected_output_shape)
        self.assertEqual(len(layer.weights), expected_num_weights)

        symbolic = [keras.Input(batch_shape=np.shape(x), dtype=np.asarray(x).dtype) for x in inputs]
        symbolic_outputs = layer(*symbolic)
        symbolic_shapes = keras.tree.map_structure(lambda x: tuple(x.shape), symbolic_outputs)
        self.assertEqual(symbolic_shapes, expected_output_shape)

        # One optimizer step must change every trainable weight.
        model = keras.Model(symbolic, symbolic_outputs)
        model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
        # Random targets: a constant target has zero gradient through a final LayerNorm.
        rng = np.random.default_rng(0)
        targets = keras.tree.map_structure(
            lambda x: rng.normal(size=x.shape).astype("float32"), outputs
        )
        before = [np.array(w) for w in layer.trainable_weights]
        model.fit(list(inputs), targets, epochs=1, batch_size=len(inputs[0]), verbose=0)
        for old, weight in zip(before, layer.trainable_weights):
            new = np.array(weight)
            if weight.path.endswith(tuple(gradient_free)):
                np.testing.assert_allclose(new, old, atol=1e-6, err_msg=weight.path)
            else:
                self.assertFalse(np.array_equal(new, old), f"{weight.path} was not trained")
        self.run_serialization_test(layer)

    def run_model_saving_test(self, model, inputs):
        """`.keras` save and load gives a model of the same class with the same outputs."""
        expected = model.predict(inputs, verbose=0)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.keras")
            model.save(path)
            restored = keras.saving.load_model(path)
        self.assertIs(type(restored), type(model))
        self.assertAllClose(restored.predict(inputs, verbose=0), expected, atol=1e-6)
        self.assertEqual(restored.get_config(), model.get_config())
