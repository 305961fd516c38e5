"""Tests for `BertConfig`."""

import json

import pytest

from keras_bert.models.bert_config import NAMED_SIZES, BertConfig


@pytest.mark.parametrize(
    "name, layers, hidden, heads",
    [
        ("tiny", 2, 128, 2),
        ("mini", 4, 256, 4),
        ("small", 4, 512, 8),
        ("medium", 8, 512, 8),
        ("base", 12, 768, 12),
        ("large", 24, 1024, 16),
    ],
)
def test_named_sizes_are_the_published_family(name, layers, hidden, heads):
    config = getattr(BertConfig, name)()
    assert (config.num_hidden_layers, config.hidden_size) == (layers, hidden)
    assert config.num_attention_heads == heads
    assert config.intermediate_size == 4 * hidden
    assert config.vocab_size == 30522
    assert config == BertConfig.from_name(name)
    assert set(NAMED_SIZES) == {"tiny", "mini", "small", "medium", "base", "large"}


def test_json_round_trip_uses_google_research_keys(tmp_path):
    config = BertConfig.mini(vocab_size=1000, hidden_dropout_prob=0.2)
    path = tmp_path / "bert_config.json"
    config.to_json_file(path)
    keys = set(json.loads(path.read_text()))
    assert keys == {
        "vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
        "intermediate_size", "hidden_act", "hidden_dropout_prob",
        "attention_probs_dropout_prob", "max_position_embeddings", "type_vocab_size",
        "initializer_range",
    }
    assert BertConfig.from_json_file(path) == config


def test_reads_the_original_bert_base_config(tmp_path):
    # The bert_config.json published with uncased_L-12_H-768_A-12, verbatim.
    original = {
        "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072,
        "max_position_embeddings": 512, "num_attention_heads": 12, "num_hidden_layers": 12,
        "type_vocab_size": 2, "vocab_size": 30522,
    }
    path = tmp_path / "bert_config.json"
    path.write_text(json.dumps(original))
    assert BertConfig.from_json_file(path) == BertConfig.base()


def test_missing_key_is_named(tmp_path):
    path = tmp_path / "bert_config.json"
    path.write_text(json.dumps({"vocab_size": 10, "hidden_size": 8, "num_attention_heads": 2}))
    with pytest.raises(ValueError, match=r"missing required BERT config key\(s\) \['num_hidden_layers', 'intermediate_size'\]"):
        BertConfig.from_json_file(path)


def test_missing_and_malformed_files_are_clear(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        BertConfig.from_json_file(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        BertConfig.from_json_file(bad)


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"hidden_size": 10, "num_attention_heads": 3}, "must be a multiple of num_attention_heads"),
        ({"hidden_act": "swish"}, "hidden_act='swish' is not supported"),
        ({"num_hidden_layers": 0}, "num_hidden_layers must be a positive integer"),
        ({"hidden_dropout_prob": 1.5}, r"hidden_dropout_prob must be a number in \[0, 1\)"),
    ],
)
def test_invalid_values_are_rejected_with_the_field_named(overrides, message):
    with pytest.raises(ValueError, match=message):
        BertConfig.tiny(**overrides)


def test_other_layer_norm_eps_is_refused():
    with pytest.raises(ValueError, match="layer_norm_eps=1e-05"):
        BertConfig.from_dict({**BertConfig.tiny().to_dict(), "layer_norm_eps": 1e-5})
