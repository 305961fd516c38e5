"""Tokenization: vocab files, the reference and in-graph BERT tokenizers, packing, preprocessing."""
