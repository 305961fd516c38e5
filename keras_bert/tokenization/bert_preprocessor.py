"""`BertPreprocessor`: raw strings (or string pairs) -> BERT model inputs, in-graph."""

import keras
import tensorflow as tf

from keras_bert.api_export import keras_bert_export
from keras_bert.api_export import renamed_config_keys
from keras_bert.tokenization.bert_tokenizer import BertTokenizer
from keras_bert.tokenization.tf_packing import BertPacker
from keras_bert.tokenization.tf_packing import as_segments
from keras_bert.tokenization.reference_tokenizer import MAX_INPUT_CHARS_PER_WORD
from keras_bert.tokenization.vocab import special_token_ids


@keras_bert_export("keras_bert.BertPreprocessor")
class BertPreprocessor(keras.layers.Layer):
    """`BertTokenizer` followed by `BertPacker`: text in, `BertEncoder` inputs out.

    One text per example gives `[CLS] A [SEP]`; a pair (e.g. question, passage) gives
    `[CLS] A [SEP] B [SEP]`, truncated as google-research/bert truncates pairs. The special-token
    ids are looked up in the vocabulary, so google's vocabularies and ones made by
    `keras_bert.learn_vocabulary` both work. Everything is TensorFlow ops: use it in
    `tf.data.Dataset.map`, or put it in front of a model for export.

    Args:
        vocabulary: str path of a `vocab.txt`, or a list of str tokens (id = position).
        sequence_length: int. Output length, special tokens included.
        do_lower_case: bool. Lower-case and strip accents (google's name): `True` for uncased
            checkpoints. Defaults to `True`.
        max_input_chars_per_word: int. Longer words become `[UNK]`. Defaults to 200 (google).
        **kwargs: standard `keras.layers.Layer` arguments.

    Call arguments:
        inputs: string tensor `[batch]` (or scalar, or Python str / list of str), or a tuple
            `(text_a, text_b)` of two such for text pairs (a list of str is a batch, never a
            pair). UTF-8. For a `tf.data` dataset of pairs:
            `ds.map(lambda a, b: preprocessor((a, b)))`.

    Returns:
        dict of int32 tensors `[batch, sequence_length]` (`[sequence_length]` for scalars):
        `token_ids`, `segment_ids` (0 for `[CLS] A [SEP]`, 1 for `B [SEP]`) and `padding_mask`
        (1 for real tokens, 0 for padding).

    Example:
    >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "who", "ran", "?", "bo"]
    >>> preprocessor = keras_bert.BertPreprocessor(vocab, sequence_length=8)
    >>> x = preprocessor((["Who ran?"], ["Bo ran"]))
    >>> x["token_ids"].numpy().tolist()
    [[2, 5, 6, 7, 3, 8, 6, 3]]
    >>> x["segment_ids"].numpy().tolist()
    [[0, 0, 0, 0, 0, 1, 1, 1]]

    Reference:
        google-research/bert, `run_classifier.py` (`convert_single_example`).
    """

    def __init__(
        self,
        vocabulary,
        sequence_length,
        do_lower_case=True,
        max_input_chars_per_word=MAX_INPUT_CHARS_PER_WORD,
        **kwargs,
    ):
        super().__init__(**kwargs)
        # Keras would otherwise convert inputs to float backend tensors and reject Python str.
        self._convert_input_args = False
        self._allow_non_tensor_positional_args = True
        self.tokenizer = BertTokenizer(
            vocabulary,
            do_lower_case=do_lower_case,
            max_input_chars_per_word=max_input_chars_per_word,
            name="tokenizer",
        )
        ids = special_token_ids(self.tokenizer.vocabulary)
        self.packer = BertPacker(
            sequence_length,
            cls_token_id=ids["[CLS]"],
            sep_token_id=ids["[SEP]"],
            pad_token_id=ids["[PAD]"],
            name="packer",
        )
        self.sequence_length = sequence_length
        self.do_lower_case = do_lower_case
        self.max_input_chars_per_word = max_input_chars_per_word
        self.built = True

    @property
    def vocabulary(self):
        return self.tokenizer.vocabulary

    def call(self, inputs):
        segments = as_segments(inputs)
        if len(segments) not in (1, 2):
            raise ValueError(
                f"BertPreprocessor takes one text or a pair of texts, got {len(segments)} inputs. "
                "Pass a tuple (text_a, text_b) for pairs."
            )
        return self.packer(tuple(self.tokenizer(segment) for segment in segments))

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "vocabulary": self.tokenizer.vocabulary,
                "sequence_length": self.sequence_length,
                "do_lower_case": self.do_lower_case,
                "max_input_chars_per_word": self.max_input_chars_per_word,
            }
        )
        return config

    @classmethod
    def from_config(cls, config):
        # `.keras` files saved before the argument took google's name hold `lowercase`.
        return super().from_config(renamed_config_keys(config, {"lowercase": "do_lower_case"}))
