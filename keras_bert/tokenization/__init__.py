"""Tokenization: vocab files, the reference and in-graph BERT tokenizers, packing, preprocessing."""

# The in-graph basic tokenizer (normalization + word splitting) that `BertTokenizer` runs
# before WordPiece; exported graphs that need the words themselves (SQuAD's answer
# projection) use it directly.
from keras_bert.tokenization.basic_tokenizer import BasicTokenizer
