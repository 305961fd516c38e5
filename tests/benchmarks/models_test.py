"""The benchmark's three implementations hold the same weights and compute the same outputs."""

import pytest

from benchmarks import configs, hf_models, inputs, models


def _outputs():
    config = configs.bert_config("tiny")
    batch, _ = inputs.pretraining_batch(config["vocab_size"], 2, 16, 3)
    ours = models.our_pretrainer(config)
    hub = models.KerasHubPretrainer(config, weights_from=ours)
    hf = hf_models.hf_model(config, weights_from=ours)
    return models.pretraining_outputs(ours, hub, hf, batch)


def test_keras_hub_and_hf_copies_compute_keras_bert_outputs():
    outputs = _outputs()
    worst = models.check_same_outputs(outputs, atol=1e-4)
    assert set(worst) == {"keras-hub/mlm_logits", "keras-hub/nsp_logits",
                          "HF PyTorch/mlm_logits", "HF PyTorch/nsp_logits"}


def test_a_different_model_is_refused():
    outputs = _outputs()
    outputs["HF PyTorch"]["nsp_logits"] = outputs["HF PyTorch"]["nsp_logits"] + 0.01
    with pytest.raises(AssertionError, match="HF PyTorch computes other nsp_logits"):
        models.check_same_outputs(outputs, atol=1e-3)


def test_flop_count_of_bert_base():
    # 12 layers x (4 S H^2 + 2 S H I + 2 S^2 H) = 11.17 G multiply-adds at S=128.
    flops = configs.encoder_flops(configs.bert_config("base"), 128)
    assert abs(flops / 1e9 - 22.347) < 0.001


def test_unknown_config_is_named():
    with pytest.raises(ValueError, match="Unknown benchmark config 'huge'"):
        configs.bert_config("huge")
