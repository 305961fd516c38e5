"""`BertPacker`: token-id segments -> fixed-length `[CLS] A [SEP] B [SEP]` model inputs."""

import keras
import keras_hub
import tensorflow as tf

from keras_bert.api_export import keras_bert_export


@keras_bert_export("keras_bert.BertPacker")
class BertPacker(keras.layers.Layer):
    """Packs one or two token-id segments into BERT's fixed-length input dict.

    The layout is google-research/bert's: `[CLS] A [SEP]` for one segment, `[CLS] A [SEP] B [SEP]`
    for two, then `pad_token_id` up to `sequence_length`. Too-long pairs are truncated as
    google's `_truncate_seq_pair` does: drop the last token of the currently longer segment (of B
    on a tie) until the pair fits, which keeps a short question whole next to a long passage. A
    single segment keeps its first `sequence_length - 2` tokens. The packing and truncation are
    keras-hub's `MultiSegmentPacker` (round-robin trimming), which a test checks token for token
    against a direct port of `_truncate_seq_pair`.

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
        self._packer = keras_hub.layers.MultiSegmentPacker(
            sequence_length=sequence_length,
            start_value=cls_token_id,
            end_value=sep_token_id,
            pad_value=pad_token_id,
            truncate="round_robin",
        )
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
        token_ids, segment_ids = self._packer(segments)
        # Truncation keeps exactly the budget when the segments overflow, so the number of
        # real tokens is known without looking at ids ([PAD]'s id may occur in the input).
        num_tokens = sum(_lengths(segment) for segment in segments)  # [B] or []
        num_real = tf.minimum(num_tokens, self.sequence_length - num_special) + num_special
        padding_mask = tf.sequence_mask(num_real, self.sequence_length, dtype=tf.int32)
        return {
            "token_ids": token_ids,
            "segment_ids": segment_ids,
            "padding_mask": padding_mask,
        }

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


def _lengths(segment):
    """Tokens per example: `[B]` for a batch, a scalar for one example."""
    if isinstance(segment, tf.RaggedTensor):
        return tf.cast(segment.row_lengths(), tf.int32)
    return tf.shape(segment, out_type=tf.int32)[-1]
