"""`[CLS] A [SEP] (B [SEP])` packing with core TensorFlow ops only, for serving graphs.

`keras_bert.BertPacker` truncates with keras-hub's `MultiSegmentPacker`, whose
`TFText>RoundRobinTrim` op is missing from TF Serving builds that pin an older TensorFlow Text
(tensorflow/serving#2267). Exported text signatures pack here instead, so their only
TensorFlow Text op is WordPiece itself. The truncation is google-research/bert's
`_truncate_seq_pair` in closed form, and tests check it against `BertPacker`.
"""

import tensorflow as tf


def pair_lengths(len_a, len_b, budget):
    """Lengths google's `_truncate_seq_pair` keeps of two segments within `budget` tokens.

    google drops the last token of the longer segment (of B on a tie) until the pair fits:
    a short segment stays whole and the other gets the rest; two long ones end with A at
    `ceil(budget / 2)` and B at `floor(budget / 2)`.
    """
    budget = tf.cast(budget, len_a.dtype)
    fits = len_a + len_b <= budget
    keep_a = tf.minimum(len_a, tf.maximum((budget + 1) // 2, budget - len_b))
    return tf.where(fits, len_a, keep_a), tf.where(fits, len_b, budget - keep_a)


def pack(segments, sequence_length, cls_token_id, sep_token_id, pad_token_id=0):
    """Packs one or two ragged `[batch, None]` id segments into BERT's fixed-length inputs.

    Returns:
        dict of int32 `[batch, sequence_length]`: `token_ids`, `segment_ids`, `padding_mask`.
    """
    if len(segments) == 1:
        (a,) = segments
        a = a[:, : sequence_length - 2]
        parts, types = [a], [0]
    else:
        a, b = segments
        keep_a, keep_b = pair_lengths(a.row_lengths(), b.row_lengths(), sequence_length - 3)
        a = tf.ragged.boolean_mask(a, tf.ragged.range(a.row_lengths()) < tf.expand_dims(keep_a, 1))
        b = tf.ragged.boolean_mask(b, tf.ragged.range(b.row_lengths()) < tf.expand_dims(keep_b, 1))
        parts, types = [a, b], [0, 1]
    batch = parts[0].nrows()
    cls = tf.fill([batch, 1], tf.cast(cls_token_id, parts[0].dtype))
    sep = tf.fill([batch, 1], tf.cast(sep_token_id, parts[0].dtype))
    pieces, kinds = [cls], [tf.zeros([batch, 1], tf.int32)]
    for part, kind in zip(parts, types):
        pieces += [part, sep]
        ones = tf.ones_like(tf.concat([part, sep], axis=1), tf.int32)
        kinds.append(ones * kind)
    ids = tf.concat(pieces, axis=1)  # ragged [B, None]
    segment_ids = tf.concat(kinds, axis=1)
    shape = [None, sequence_length]
    return {
        "token_ids": tf.cast(ids.to_tensor(pad_token_id, shape=shape), tf.int32),
        "segment_ids": segment_ids.to_tensor(0, shape=shape),
        "padding_mask": tf.ones_like(segment_ids).to_tensor(0, shape=shape),
    }
