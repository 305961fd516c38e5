"""Tokenization: vocab files, the reference and in-graph BERT tokenizers, packing, preprocessing."""

from keras_bert.tensorflow_extra import export_tensorflow_symbols

# The in-graph basic tokenizer (normalization + word splitting) that `BertTokenizer` runs
# before WordPiece; exported graphs that need the words themselves (SQuAD's answer
# projection) use it directly. TensorFlow-only: imported now where TensorFlow is installed,
# else a one-line install hint on use.
export_tensorflow_symbols(globals(), {
    "BasicTokenizer": "keras_bert.tokenization.basic_tokenizer",
})
