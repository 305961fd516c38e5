"""`MaskFiller`: literal [MASK]s become mask positions; answers are the head's own top tokens.

The end-to-end check against HF's masked LM is tests/keras_bert/cli/fill_mask_test.py.
"""

import numpy as np
import pytest

from keras_bert.analysis.mask_filler import MaskFiller
from keras_bert.checkpoints.weight_map import collect_weights
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.reference import numpy_bert
from tests.test_case import randomize_weights

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "."]
CLS, SEP, MASK = 2, 3, 4


def make_filler(sequence_length=8):
    encoder = BertEncoder(vocab_size=len(VOCAB), hidden_size=8, num_hidden_layers=1,
                          num_attention_heads=2, intermediate_size=16, max_position_embeddings=16)
    pretrainer = BertPretrainer(encoder)
    randomize_weights(pretrainer)
    return MaskFiller(pretrainer, ReferenceTokenizer(VOCAB), sequence_length)


@pytest.mark.backend_portable
def test_literal_masks_become_mask_positions():
    inputs, counts = make_filler().inputs(["the [MASK] sat .", "[MASK] on [MASK]"])
    assert inputs["token_ids"].tolist() == [[CLS, 5, MASK, 7, 10, SEP, 0, 0],
                                            [CLS, MASK, 8, MASK, SEP, 0, 0, 0]]
    assert inputs["mask_positions"].tolist() == [[2, 0], [1, 3]]
    assert counts == [1, 2]
    assert inputs["padding_mask"].tolist()[0] == [1, 1, 1, 1, 1, 1, 0, 0]


@pytest.mark.backend_portable
def test_long_query_keeps_its_end():
    inputs, _ = make_filler(sequence_length=5).inputs(["the cat sat on the [MASK]"])
    # 3 tokens fit between [CLS] and [SEP]: the last three.
    assert inputs["token_ids"].tolist() == [[CLS, 8, 5, MASK, SEP]]
    assert inputs["mask_positions"].tolist() == [[3]]


@pytest.mark.backend_portable
def test_query_without_a_mask_names_the_query():
    with pytest.raises(ValueError, match="No \\[MASK\\] in 'the cat sat'"):
        make_filler().inputs(["the cat [MASK]", "the cat sat"])


@pytest.mark.backend_portable
def test_mask_cut_off_by_the_length_says_so():
    with pytest.raises(ValueError, match="longer than 3 tokens"):
        make_filler(sequence_length=5).inputs(["the [MASK] sat on the mat"])


@pytest.mark.backend_portable
def test_fill_ranks_by_the_reference_heads():
    filler = make_filler()
    inputs, _ = filler.inputs(["the [MASK] sat ."])
    weights = collect_weights(filler.pretrainer)
    config = filler.pretrainer.encoder.bert_config.to_dict()
    sequence, pooled, _ = numpy_bert.encoder(
        weights, config, inputs["token_ids"], inputs["segment_ids"], inputs["padding_mask"])
    mlm, _ = numpy_bert.pretraining_heads(weights, config, sequence, pooled, inputs["mask_positions"])
    expected = [VOCAB[i] for i in np.argsort(-mlm[0, 0])[:3]]
    assert filler.fill("the [MASK] sat .", top_k=3) == [expected]



@pytest.mark.backend_portable
def test_top_tokens_are_the_reference_softmax_over_the_vocabulary():
    filler = make_filler()
    texts = ["the [MASK] sat .", "[MASK] on [MASK]"]
    inputs, _ = filler.inputs(texts)
    weights = collect_weights(filler.pretrainer)
    config = filler.pretrainer.encoder.bert_config.to_dict()
    sequence, pooled, _ = numpy_bert.encoder(
        weights, config, inputs["token_ids"], inputs["segment_ids"], inputs["padding_mask"])
    mlm, _ = numpy_bert.pretraining_heads(weights, config, sequence, pooled, inputs["mask_positions"])
    found = filler.top_tokens(texts, top_k=4)
    assert [len(masks) for masks in found] == [1, 2]  # the first text's padded slot is dropped
    for t, masks in enumerate(found):
        for m, tokens in enumerate(masks):
            logits = mlm[t, m].astype("float64")
            reference = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
            order = np.argsort(-reference)[:4]
            assert [token for token, _ in tokens] == [VOCAB[i] for i in order]
            np.testing.assert_allclose([p for _, p in tokens], reference[order], atol=1e-5)
