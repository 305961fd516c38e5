"""Core-op packing == `keras_bert.BertPacker` (google's truncation), without TF Text ops."""

import itertools

import keras_bert
import numpy as np
import tensorflow as tf

from export.serving.text_packing import pack
from tests.test_case import TestCase


class TextPackingTest(TestCase):
    def test_matches_bert_packer_on_every_small_length_combination(self):
        lengths = range(0, 9)
        for sequence_length in (3, 4, 7, 10):
            packer = keras_bert.BertPacker(sequence_length, cls_token_id=2, sep_token_id=3)
            pairs = list(itertools.product(lengths, lengths))
            a = tf.ragged.constant([[10 + i for i in range(n)] for n, _ in pairs], tf.int32,
                                   ragged_rank=1, row_splits_dtype=tf.int64)
            b = tf.ragged.constant([[50 + i for i in range(m)] for _, m in pairs], tf.int32,
                                   ragged_rank=1, row_splits_dtype=tf.int64)
            for segments in ((a,), (a, b)):
                expected = packer(segments)
                actual = pack(segments, sequence_length, cls_token_id=2, sep_token_id=3)
                for name in ("token_ids", "segment_ids", "padding_mask"):
                    np.testing.assert_array_equal(
                        actual[name].numpy(), expected[name].numpy(),
                        err_msg=f"{name}, sequence_length={sequence_length}, {len(segments)} segments",
                    )

    def test_graph_has_no_tensorflow_text_ops(self):
        spec = tf.RaggedTensorSpec([None, None], tf.int32, row_splits_dtype=tf.int64)
        graph = tf.function(lambda a, b: pack((a, b), 16, 2, 3)).get_concrete_function(spec, spec).graph
        ops = {op.type for op in graph.get_operations()}
        self.assertFalse([op for op in ops if op.startswith("TFText") or not hasattr(tf.raw_ops, op)], ops)
