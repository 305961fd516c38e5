"""`trim_batch_padding`: shorter batches, same outputs at real positions."""

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.data.batch_trimming import trim_batch_padding
from keras_bert.models.bert_encoder import BertEncoder
from tests.test_case import TINY, randomize_weights, tiny_inputs


def test_batches_are_cut_to_their_longest_row_and_outputs_do_not_change():
    inputs = tiny_inputs(seq=7, lengths=(4, 2, 3))
    labels = np.arange(21).reshape(3, 7)
    weights = (labels % 2).astype("float32")
    trimmed, trimmed_labels, trimmed_weights, ids = trim_batch_padding(
        {k: tf.constant(v) for k, v in inputs.items()}, tf.constant(labels),
        tf.constant(weights), tf.constant([5, 6, 7]),
    )
    assert trimmed["token_ids"].shape == (3, 4) and trimmed_labels.shape == (3, 4)
    np.testing.assert_array_equal(trimmed_weights, weights[:, :4])
    np.testing.assert_array_equal(ids, [5, 6, 7])  # rank-1 targets pass through
    encoder = BertEncoder(**TINY)
    randomize_weights(encoder, scale=0.2)
    full = encoder.predict(inputs, verbose=0)["sequence_output"]
    short = encoder.predict({k: v.numpy() for k, v in trimmed.items()}, verbose=0)["sequence_output"]
    for row, length in enumerate((4, 2, 3)):
        np.testing.assert_allclose(short[row, :length], full[row, :length], atol=1e-6)


def test_pad_to_multiple_of_rounds_up_but_never_past_the_padded_width():
    def width(lengths, seq, multiple):
        inputs = tiny_inputs(batch=len(lengths), seq=seq, lengths=lengths)
        trimmed, _ = trim_batch_padding(
            {k: tf.constant(v) for k, v in inputs.items()}, tf.constant([0] * len(lengths)),
            pad_to_multiple_of=multiple,
        )
        return trimmed["token_ids"].shape[1]

    assert width((5, 3), seq=12, multiple=4) == 8
    assert width((8, 3), seq=12, multiple=4) == 8
    assert width((9, 3), seq=10, multiple=4) == 10  # 12 would pass the padded width
    assert width((5, 3), seq=12, multiple=1) == 5
    with pytest.raises(ValueError, match="pad_to_multiple_of=0"):
        width((5, 3), seq=12, multiple=0)
