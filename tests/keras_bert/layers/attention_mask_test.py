"""Tests for `attention_mask`: the three patterns, golden, and padding."""

import numpy as np
import pytest

from keras_bert.layers.attention_mask import attention_mask
from tests.test_case import TestCase


class AttentionMaskTest(TestCase):
    @pytest.mark.backend_portable
    def test_golden_patterns_with_padding(self):
        padding = np.array([[1, 1, 1, 0]], "int32")
        expected = {
            "bidirectional": [[1, 1, 1, 0]] * 4,
            "causal": [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 0]],
            # Query i never sees key i + 1; padded keys never.
            "hide_next": [[1, 0, 1, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 0]],
        }
        for pattern, mask in expected.items():
            got = np.asarray(attention_mask(padding, pattern)).astype(int)
            self.assertEqual(got.shape, (1, 4, 4), msg=pattern)
            self.assertEqual(got[0].tolist(), mask, msg=pattern)

    def test_rejects_unknown_pattern(self):
        with self.assertRaisesRegex(ValueError, "Unknown attention pattern 'left'.*causal"):
            attention_mask(np.ones((1, 3), "int32"), "left")
