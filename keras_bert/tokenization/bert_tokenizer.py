"""`BertTokenizer`: in-graph BERT WordPiece tokenization with the reference tokenizer's ids."""

import keras
import tensorflow as tf
import tensorflow_text as tf_text

from keras_bert.api_export import keras_bert_export
from keras_bert.api_export import renamed_config_keys
from keras_bert.tokenization.basic_tokenizer import BasicTokenizer
from keras_bert.tokenization.reference_tokenizer import MAX_INPUT_CHARS_PER_WORD
from keras_bert.tokenization.vocab import load_vocabulary


@keras_bert_export("keras_bert.BertTokenizer")
class BertTokenizer(keras.layers.Layer):
    """Tokenizes strings into BERT WordPiece ids with TensorFlow ops (`tf.data`, SavedModel).

    The ids are exactly those of google-research/bert's `FullTokenizer` (our
    `ReferenceTokenizer`), which tests check on all of SQuAD v1.1 dev and on hard cases. Ready-made
    `tensorflow_text` normalizers are close but not equal (ICU case folding maps "ß" to "ss" and
    NFKC-folds "ﬁ"; Python's `str.lower` does neither and picks Greek final sigma by context), so
    the normalization here is built from per-code-point tables computed from Python's own
    `unicodedata` and `str.lower`, and only WordPiece itself is `tf_text.FastWordpieceTokenizer`.

    Args:
        vocabulary: str path of a `vocab.txt`, or a list of str tokens (id = position).
        do_lower_case: bool. Lower-case and strip accents (google's name). Use `True` with
            uncased checkpoints, `False` with cased ones. Defaults to `True`.
        max_input_chars_per_word: int. A word longer than this, counted in characters (code
            points) as google counts, becomes one `[UNK]`. Defaults to 200 (google's value).
        **kwargs: standard `keras.layers.Layer` arguments (`name`, ...).

    Call arguments:
        inputs: string tensor (or Python str / list of str), scalar or `[batch]`, UTF-8. Invalid
            UTF-8 fails a `tf.debugging.Assert` with an explanatory message.

    Returns:
        int32 token ids: a `tf.RaggedTensor` `[batch, None]` for `[batch]` input, a dense
        `[num_tokens]` tensor for a scalar. No `[CLS]`/`[SEP]`: `BertPacker` adds them.

    Example:
    >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "qu", "##ick", "fox", "."]
    >>> tokenizer = keras_bert.BertTokenizer(vocab)
    >>> tokenizer(["The quick fox.", "THE FOX"]).to_list()
    [[5, 6, 7, 8, 9], [5, 8]]

    Reference:
        google-research/bert, `tokenization.py` (`FullTokenizer`).
    """

    def __init__(
        self,
        vocabulary,
        do_lower_case=True,
        max_input_chars_per_word=MAX_INPUT_CHARS_PER_WORD,
        **kwargs,
    ):
        super().__init__(**kwargs)
        # Keras would otherwise convert inputs to float backend tensors and reject Python str.
        self._convert_input_args = False
        self._allow_non_tensor_positional_args = True
        self.vocabulary = load_vocabulary(vocabulary)
        self.do_lower_case = do_lower_case
        self.max_input_chars_per_word = max_input_chars_per_word
        self._token_to_id = {token: i for i, token in enumerate(self.vocabulary)}
        self._wordpiece = tf_text.FastWordpieceTokenizer(
            vocab=self.vocabulary,
            suffix_indicator="##",
            # The character limit is applied in `call`; this byte limit only has to be loose
            # enough never to fire first (a code point is at most 4 UTF-8 bytes).
            max_bytes_per_word=4 * max_input_chars_per_word + 4,
            token_out_type=tf.int32,
            unknown_token="[UNK]",
            no_pretokenization=True,
            support_detokenization=False,
        )
        self._basic_tokenizer = BasicTokenizer(do_lower_case)
        self.built = True

    def vocabulary_size(self):
        """Number of tokens in the vocabulary."""
        return len(self.vocabulary)

    def get_vocabulary(self):
        """The tokens, in id order (a copy)."""
        return list(self.vocabulary)

    def id_to_token(self, id):
        """The token string of integer `id`."""
        if not 0 <= id < len(self.vocabulary):
            raise ValueError(
                f"Token id {id} is outside the vocabulary [0, {len(self.vocabulary)})."
            )
        return self.vocabulary[id]

    def token_to_id(self, token):
        """The id of `token`; raises `ValueError` for a token not in the vocabulary."""
        if token not in self._token_to_id:
            raise ValueError(f"Token {token!r} is not in the vocabulary.")
        return self._token_to_id[token]

    def call(self, inputs):
        text = tf.convert_to_tensor(inputs)
        if text.dtype != tf.string:
            raise TypeError(f"BertTokenizer takes string tensors, got dtype {text.dtype.name}.")
        if text.shape.rank == 0:
            return self.call(text[tf.newaxis])[0]
        if text.shape.rank != 1:
            raise ValueError(
                f"BertTokenizer takes a scalar or a [batch] string tensor, got shape {text.shape}. "
                "Reshape to [batch] first."
            )
        words, word_rows = self._basic_tokenizer.split_words(text)  # [W] strings, [W] rows
        # A word's length in characters (google's limit), not bytes (tf_text's limit).
        num_chars = tf.strings.length(words, unit="UTF8_CHAR")
        too_long = num_chars > self.max_input_chars_per_word
        # "[UNK]" is a whole vocabulary entry, so it tokenizes to exactly the [UNK] id.
        words = tf.where(too_long, "[UNK]", words)
        pieces = self._wordpiece.tokenize(words)  # [W, None]
        batch_size = tf.shape(text, out_type=tf.int64)[0]
        by_row = tf.RaggedTensor.from_value_rowids(pieces, word_rows, nrows=batch_size)
        return by_row.merge_dims(1, 2)  # [B, None]

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "vocabulary": self.vocabulary,
                "do_lower_case": self.do_lower_case,
                "max_input_chars_per_word": self.max_input_chars_per_word,
            }
        )
        return config

    @classmethod
    def from_config(cls, config):
        # `.keras` files saved before the argument took google's name hold `lowercase`.
        return super().from_config(renamed_config_keys(config, {"lowercase": "do_lower_case"}))
