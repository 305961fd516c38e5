"""`BertPacker`: token-id segments -> fixed-length `[CLS] A [SEP] B [SEP]` model inputs, in core TensorFlow ops.

The one TensorFlow packer: the in-graph preprocessor and the exported serving signatures both
pack here. Core ops only (no TensorFlow Text op): keras-hub's `MultiSegmentPacker` truncates
with `TFText>RoundRobinTrim`, which TF Serving builds pinned to an older TensorFlow Text lack
(tensorflow/serving#2267).
"""

import keras
import tensorflow as tf

from keras_bert.api_export import keras_bert_export


@keras_bert_export("keras_bert.BertPacker")
class BertPacker(keras.layers.Layer):
    """Packs one or two token-id segments into BERT's fixed-length input dict.

    The layout is google-research/bert's: `[CLS] A [SEP]` for one segment, `[CLS] A [SEP] B [SEP]`
    for two, then `pad_token_id` up to `sequence_length`. Too-long pairs are truncated as
    google's `_truncate_seq_pair` does: drop the last token of the currently longer segment (of B
    on a tie) until the pair fits, which keeps a short question whole next to a long passage. A
    single segment keeps its first `sequence_length - 2` tokens. The truncation is
    `_truncate_seq_pair` in closed form (`pair_lengths`), in core TensorFlow ops, checked token
    for token against a direct port (`keras_bert.pack_segments`).

    Args:
        sequence_length: int. Output length, special tokens included; at least 2 for one
            segment and 3 for two.
        cls_token_id: int. Id of `[CLS]` (101 in google's English vocabularies).
        sep_token_id: int. Id of `[SEP]` (102 in google's English vocabularies).
        pad_token_id: int. Id of `[PAD]`. Defaults to 0.
        **kwargs: standard `keras.layers.Layer` arguments.

    Call arguments:
        inputs: a segment, or a tuple of one or two segments (a list of tensors also counts as
            segments, since Keras passes tuples on as lists; a list of ints is one segment). A
            segment is int token ids,
            `tf.RaggedTensor` `[batch, None]` (as `BertTokenizer` returns) or a dense `[None]`
            tensor for one unbatched example. Ids must not include `[CLS]`/`[SEP]`.

    Returns:
        dict of int32 tensors, each `[batch, sequence_length]` (`[sequence_length]` unbatched):
        `token_ids`; `segment_ids`: 0 for `[CLS] A [SEP]`, 1 for `B [SEP]`, 0 for padding;
        `padding_mask`: 1 for real tokens, 0 for padding (int32, as `BertEncoder` takes and
        TFLite prefers to bool).

    Example:
    >>> packer = keras_bert.BertPacker(sequence_length=8, cls_token_id=2, sep_token_id=3)
    >>> a = tf.ragged.constant([[10, 11, 12, 13, 14]])
    >>> b = tf.ragged.constant([[20, 21]])
    >>> outputs = packer((a, b))
    >>> outputs["token_ids"].numpy().tolist()
    [[2, 10, 11, 12, 3, 20, 21, 3]]
    >>> outputs["segment_ids"].numpy().tolist()
    [[0, 0, 0, 0, 0, 1, 1, 1]]

    Reference:
        google-research/bert, `run_classifier.py` (`convert_single_example`,
        `_truncate_seq_pair`).
    """

    # Mutation testing leaves __init__ alone: Keras reads its signature, which mutmut's wrapper
    # hides. Its checks are exercised by tf_packing_test's bad-argument cases.
    def __init__(self, sequence_length, cls_token_id, sep_token_id, pad_token_id=0, **kwargs):  # pragma: no mutate block
        super().__init__(**kwargs)
        # Keras would otherwise try to convert ragged inputs to backend tensors.
        self._convert_input_args = False
        self._allow_non_tensor_positional_args = True
        if sequence_length < 2:
            raise ValueError(
                f"sequence_length={sequence_length} cannot hold [CLS] and [SEP]: use at least 2 "
                "for single segments and 3 for pairs (BERT checkpoints use up to 512)."
            )
        self.sequence_length = sequence_length
        self.cls_token_id = cls_token_id
        self.sep_token_id = sep_token_id
        self.pad_token_id = pad_token_id
        self.built = True

    def call(self, inputs):
        segments = as_segments(inputs)
        if len(segments) not in (1, 2):
            raise ValueError(f"BertPacker packs one or two segments, got {len(segments)}.")
        num_special = len(segments) + 1  # [CLS], and one [SEP] per segment.
        if self.sequence_length < num_special:
            raise ValueError(
                f"sequence_length={self.sequence_length} cannot hold [CLS] A [SEP] B [SEP]: "
                "pairs need at least 3."
            )
        segments = tuple(_as_int32(segment) for segment in segments)
        unbatched = not isinstance(segments[0], tf.RaggedTensor) and segments[0].shape.rank == 1
        if unbatched:  # one example: a batch of one, unwrapped at the end
            segments = tuple(segment[tf.newaxis] for segment in segments)
        segments = tuple(segment if isinstance(segment, tf.RaggedTensor)
                         else tf.RaggedTensor.from_tensor(segment) for segment in segments)
        packed = pack(segments, self.sequence_length, self.cls_token_id, self.sep_token_id,
                      self.pad_token_id)
        return {name: value[0] for name, value in packed.items()} if unbatched else packed

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "sequence_length": self.sequence_length,
                "cls_token_id": self.cls_token_id,
                "sep_token_id": self.sep_token_id,
                "pad_token_id": self.pad_token_id,
            }
        )
        return config


def as_segments(inputs):
    """A tuple of segments; a list counts as segments only if it holds tensors.

    Segments are id tensors here and text tensors in `BertPreprocessor`; a plain Python list
    is one segment (a batch), not a pair.
    """
    # Keras turns the tuple passed to a layer in a functional model into a list, so a list of
    # tensors is segments too; a plain Python list of ids is one segment.
    if isinstance(inputs, tuple):
        return inputs
    if isinstance(inputs, list) and all(
        isinstance(x, (tf.Tensor, tf.RaggedTensor, keras.KerasTensor)) for x in inputs
    ):
        return tuple(inputs)
    return (inputs,)


def _as_int32(segment):
    """Token ids as int32 (tf.data and tf.Example hand over int64)."""
    if not isinstance(segment, tf.RaggedTensor):
        segment = tf.convert_to_tensor(segment)
    return tf.cast(segment, tf.int32)


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
    """Packs one or two ragged `[batch, None]` id segments into BERT's fixed-length inputs,
    with core TensorFlow ops only (what serving graphs may hold).

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
