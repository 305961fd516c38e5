"""`learn_vocabulary`: learns a WordPiece `vocab.txt` from text split as BERT's tokenizer splits."""

import os

import keras_hub
import tensorflow as tf

from keras_bert.api_export import keras_bert_export
from keras_bert.tokenization.basic_tokenizer import BasicTokenizer
from keras_bert.tokenization.vocab import SPECIAL_TOKENS
from keras_bert.tokenization.vocab import write_vocabulary


@keras_bert_export("keras_bert.learn_vocabulary")
def learn_vocabulary(
    data,
    vocabulary_size,
    output_file=None,
    do_lower_case=True,
    batch_size=256,
):
    """Learns a WordPiece vocabulary that `BertTokenizer` and google's tokenizer can use.

    The text is split into words by our `BasicTokenizer` (google-research/bert's cleaning,
    CJK and punctuation splitting, and, if `do_lower_case`, its lower-casing and accent stripping),
    so the vocabulary is learned on exactly the words the tokenizer will later look up. The
    WordPiece algorithm itself is keras-hub's `compute_word_piece_vocabulary` (tensorflow_text's
    learner), run on those words unchanged.

    The result starts with google-research's special tokens, `[PAD]` (id 0), `[UNK]`, `[CLS]`,
    `[SEP]`, `[MASK]`, then the learned tokens (single characters and their `##` forms, so
    almost no word becomes `[UNK]`). `vocabulary_size` is an upper bound: the learner searches
    for a count threshold that lands within 5% under it, and returns fewer tokens when the text
    is too small to have that many pieces seen at least 10 times.

    Args:
        data: a list of paths of UTF-8 text files (read line by line), or a `tf.data.Dataset`
            of strings (scalar or `[batch]` elements).
        vocabulary_size: int. The most tokens to return, special tokens included.
        output_file: str or `os.PathLike`. If given, the vocabulary is also written there as a
            `vocab.txt`. Defaults to `None`.
        do_lower_case: bool. Lower-case and strip accents (google's name); must match the
            `do_lower_case` the tokenizer will use with this vocabulary. Defaults to `True`.
        batch_size: int. Lines per batch while splitting words. Defaults to 256.

    Returns:
        list of str: the vocabulary, in id order.

    Example:
    >>> data = tf.data.Dataset.from_tensor_slices(["The cat sat.", "The cats sat!"] * 20)
    >>> vocab = keras_bert.learn_vocabulary(data, vocabulary_size=40)
    >>> vocab[:5]
    ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']
    >>> keras_bert.ReferenceTokenizer(vocab).tokenize("The cats sat.")
    ['the', 'cats', 'sat', '.']

    Reference:
        Wu et al. 2016, "Google's Neural Machine Translation System" (WordPiece);
        tensorflow_text `wordpiece_vocab` learner.
    """
    if vocabulary_size <= len(SPECIAL_TOKENS):
        raise ValueError(
            f"vocabulary_size={vocabulary_size} leaves no room beyond the "
            f"{len(SPECIAL_TOKENS)} special tokens."
        )
    lines = _as_dataset(data, batch_size)
    basic_tokenizer = BasicTokenizer(do_lower_case)
    words = lines.map(basic_tokenizer, num_parallel_calls=tf.data.AUTOTUNE)  # [B, None]
    vocabulary = keras_hub.tokenizers.compute_word_piece_vocabulary(
        words,
        vocabulary_size,
        # The words are final: no further splitting, lower-casing or accent stripping, which
        # keras-hub would do with ICU rules that differ from google's.
        lowercase=False,
        strip_accents=False,
        split=False,
        suffix_indicator="##",
        reserved_tokens=list(SPECIAL_TOKENS),
    )
    if output_file is not None:
        write_vocabulary(vocabulary, output_file)
    return vocabulary


def _as_dataset(data, batch_size):
    """Text files or a dataset of strings -> a dataset of `[batch]` strings."""
    if isinstance(data, (str, os.PathLike)):
        data = [data]  # One file is an easy slip to make; accept it.
    if isinstance(data, (list, tuple)):
        paths = [os.fspath(path) for path in data]
        missing = [path for path in paths if not os.path.isfile(path)]
        if missing:
            raise FileNotFoundError(f"learn_vocabulary: no such text file(s): {missing}.")
        data = tf.data.TextLineDataset(paths)
    if not isinstance(data, tf.data.Dataset):
        raise TypeError(
            "learn_vocabulary takes a list of text file paths or a tf.data.Dataset of strings; "
            f"got {type(data).__name__}."
        )
    spec = data.element_spec
    if not isinstance(spec, tf.TensorSpec) or spec.dtype != tf.string:
        raise TypeError(f"learn_vocabulary needs a dataset of strings, got elements {spec}.")
    if spec.shape.rank == 0:
        data = data.batch(batch_size)
    elif spec.shape.rank != 1:
        raise ValueError(f"Dataset elements must be scalars or [batch] strings, got {spec.shape}.")
    return data
