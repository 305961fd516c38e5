"""`in_xla_context`: true exactly while TensorFlow traces a jit_compile function."""

import tensorflow as tf

from keras_bert.layers.xla_context import in_xla_context


def test_the_xla_context_is_seen_only_inside_jit_compiled_functions():
    seen = {}

    def probe(key):
        seen[key] = in_xla_context()
        return tf.constant(0.0)

    tf.function(lambda: probe("xla"), jit_compile=True)()
    tf.function(lambda: probe("graph"))()
    probe("eager")
    assert seen == {"xla": True, "graph": False, "eager": False}
