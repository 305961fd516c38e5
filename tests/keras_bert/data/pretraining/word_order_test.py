"""`shuffle_word_order`: words move whole, each sentence keeps its bag of words, order changes."""

import collections
import random

from keras_bert.data.pretraining.word_order import shuffle_word_order

VOCAB = ["[PAD]", "the", "dog", "bark", "##s", "cat", "##ty", "runs", ".", "a"]


def words(sentence):
    out = []
    for token in sentence:
        if out and VOCAB[token].startswith("##"):
            out[-1] = out[-1] + (token,)
        else:
            out.append((token,))
    return out


def test_words_move_whole_and_sentences_keep_their_words():
    rng = random.Random(0)
    documents = [
        [[rng.choice([1, 2, 3, 5, 7, 8, 9]) for _ in range(12)] + [3, 4, 5, 6, 8] for _ in range(50)]
        for _ in range(4)
    ]
    shuffled = shuffle_word_order(documents, VOCAB, random.Random(1))
    changed = 0
    for document, new_document in zip(documents, shuffled):
        assert len(document) == len(new_document)
        for sentence, new in zip(document, new_document):
            assert collections.Counter(words(sentence)) == collections.Counter(words(new))
            assert (3, 4) in words(new) and (5, 6) in words(new)  # "bark ##s", "cat ##ty" intact
            changed += words(sentence) != words(new)
    # A uniform shuffle of 15 words keeps their order with probability ~1/15! per sentence.
    assert changed == 200


def test_is_reproducible_and_seeded():
    documents = [[[1, 2, 3, 4, 5, 7, 8]]]
    first = shuffle_word_order(documents, VOCAB, random.Random(3))
    assert first == shuffle_word_order(documents, VOCAB, random.Random(3))
    assert documents == [[[1, 2, 3, 4, 5, 7, 8]]]  # the input is not modified
    assert any(shuffle_word_order(documents, VOCAB, random.Random(s)) != first for s in range(4, 10))
