"""Word-order shuffling within sentences: pretraining text without its order (Sinha et al. 2021)."""

from keras_bert.api_export import keras_bert_export


@keras_bert_export("keras_bert.data.shuffle_word_order")
def shuffle_word_order(documents, vocabulary, rng):
    """Shuffles the words of every sentence of tokenized documents; sentences stay in place.

    A word is a WordPiece that does not start with `##` plus the `##` pieces that follow it, so
    words move whole and every sentence keeps its bag of words (and pieces). This is the unigram
    shuffle of Sinha et al. 2021, "Masked Language Modeling and the Distributional Hypothesis:
    Order Word Matters Pre-training for Little", applied after tokenization so punctuation
    (its own word under BERT's tokenizer) moves too.

    Args:
        documents: list of documents, each a list of sentences of int token ids (as
            `tokenize_documents` returns).
        vocabulary: list of str tokens (to know which pieces continue a word).
        rng: `random.Random`, the only randomness.

    Returns:
        New documents of the same shape, each sentence a permutation of its words.

    Example:
    >>> import random
    >>> vocab = ["[PAD]", "the", "dog", "bark", "##s"]
    >>> keras_bert.data.shuffle_word_order([[[1, 2, 3, 4]]], vocab, random.Random(1))
    [[[2, 3, 4, 1]]]
    """
    continues = [token.startswith("##") for token in vocabulary]
    shuffled = []
    for document in documents:
        sentences = []
        for sentence in document:
            words = []
            for token in sentence:
                if words and continues[token]:
                    words[-1].append(token)
                else:
                    words.append([token])
            rng.shuffle(words)
            sentences.append([token for word in words for token in word])
        shuffled.append(sentences)
    return shuffled
