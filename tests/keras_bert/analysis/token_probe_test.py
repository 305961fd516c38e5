"""`TokenIdentityProbe`: 100% on layer-0 embeddings of a tiny vocabulary, chance on noise."""

import numpy as np
import pytest

from keras_bert.analysis.token_probe import TokenIdentityProbe
from keras_bert.models.bert_encoder import BertEncoder
from tests.test_case import TINY


def test_reaches_100_percent_on_layer0_embeddings_of_a_tiny_vocabulary():
    encoder = BertEncoder(**{**TINY, "vocab_size": 12, "hidden_size": 64})
    rng = np.random.default_rng(0)
    # Token vectors about 3x the norm of position ones, as after pretraining
    # (docs/lab/pretraining_history.md: 1.05 against 0.32 at initialization). At initialization,
    # where token, position and segment vectors are equally small, LayerNorm mixes them so that no
    # linear classifier separates all tokens at all positions (softmax regression also stays at
    # 97.7 % on its own training set).
    table = encoder.embeddings.token_embedding.embeddings
    table.assign(rng.normal(0.0, 0.06, table.shape).astype("float32"))
    token_ids = rng.integers(0, 12, (40, 16)).astype("int32")  # every position, both segments
    segment_ids = rng.integers(0, 2, (40, 16)).astype("int32")
    embedded = np.asarray(encoder.embeddings(token_ids, segment_ids, training=False))  # [40, 16, 64]
    features, ids = embedded.reshape(-1, 64), token_ids.reshape(-1)
    train = np.repeat(np.arange(40) < 30, 16)  # by sentence
    probe = TokenIdentityProbe().fit(features[train], ids[train])
    assert probe.accuracy(features[~train], ids[~train]) == 1.0


def test_noise_is_at_chance_and_unseen_tokens_are_excluded():
    rng = np.random.default_rng(1)
    features, ids = rng.normal(size=(3000, 8)), rng.integers(0, 10, 3000)
    probe = TokenIdentityProbe().fit(features[:2000], ids[:2000])
    assert abs(probe.accuracy(features[2000:], ids[2000:]) - 0.1) < 0.04
    # Token 99 never occurred in training: those rows are left out, not counted wrong.
    assert probe.accuracy(np.concatenate([features[:5], features[:5]]), np.r_[ids[:5], [99] * 5]) == \
        probe.accuracy(features[:5], ids[:5])


def test_no_known_token_is_an_error():
    probe = TokenIdentityProbe().fit(np.eye(3), np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="None of the evaluation tokens"):
        probe.accuracy(np.eye(3), np.array([7, 8, 9]))
