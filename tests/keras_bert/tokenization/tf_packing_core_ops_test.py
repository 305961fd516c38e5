"""`tf_packing.pack` (what BertPacker and the serving signatures run) == the NumPy port of google's
`_truncate_seq_pair` packing, in core TensorFlow ops only (no TF Text op)."""

import itertools

import numpy as np
import tensorflow as tf

import keras_bert
from keras_bert.tokenization.tf_packing import pack
from tests.test_case import TestCase


class TextPackingTest(TestCase):
    def test_matches_numpy_packing_on_every_small_length_combination(self):
        lengths = range(0, 9)
        for sequence_length in (3, 4, 7, 10):
            pairs = list(itertools.product(lengths, lengths))
            first = [[10 + i for i in range(n)] for n, _ in pairs]
            second = [[50 + i for i in range(m)] for _, m in pairs]
            a = tf.ragged.constant(first, tf.int32, ragged_rank=1, row_splits_dtype=tf.int64)
            b = tf.ragged.constant(second, tf.int32, ragged_rank=1, row_splits_dtype=tf.int64)
            for segments, pair in (((a,), None), ((a, b), second)):
                expected = keras_bert.pack_segments(first, pair, sequence_length=sequence_length,
                                                    cls_token_id=2, sep_token_id=3)
                actual = pack(segments, sequence_length, cls_token_id=2, sep_token_id=3)
                for name in ("token_ids", "segment_ids", "padding_mask"):
                    np.testing.assert_array_equal(
                        actual[name].numpy(), expected[name],
                        err_msg=f"{name}, sequence_length={sequence_length}, {len(segments)} segments",
                    )

    def test_graph_has_no_tensorflow_text_ops(self):
        spec = tf.RaggedTensorSpec([None, None], tf.int32, row_splits_dtype=tf.int64)
        graph = tf.function(lambda a, b: pack((a, b), 16, 2, 3)).get_concrete_function(spec, spec).graph
        ops = {op.type for op in graph.get_operations()}
        self.assertFalse([op for op in ops if op.startswith("TFText") or not hasattr(tf.raw_ops, op)], ops)
