"""The BERT optimizer recipe: schedule values, and which variables get weight decay."""

import keras
import numpy as np
import pytest

from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.training.optimizer import create_optimizer
from keras_bert.training.optimizer import decay_exempt_variables
from keras_bert.training.warmup_linear_decay import WarmupLinearDecay
from tests.test_case import TINY


def test_schedule_warms_up_then_decays_linearly():
    schedule = WarmupLinearDecay(2e-4, num_train_steps=1000, num_warmup_steps=100)
    values = [float(schedule(s)) for s in (0, 50, 99, 100, 550, 1000, 1200)]
    np.testing.assert_allclose(values, [0.0, 1e-4, 1.98e-4, 1.8e-4, 0.9e-4, 0.0, 0.0], rtol=1e-5, atol=1e-12)
    assert WarmupLinearDecay.from_config(schedule.get_config()).get_config() == schedule.get_config()
    with pytest.raises(ValueError, match="num_warmup_steps"):
        WarmupLinearDecay(1e-4, num_train_steps=10, num_warmup_steps=20)


def test_no_weight_decay_on_layer_norm_and_biases():
    model = BertPretrainer(BertEncoder(**TINY))
    exempt = {v.path for v in decay_exempt_variables(model)}
    # google-research/bert's optimization.py: exclude_from_weight_decay=["LayerNorm",
    # "layer_norm", "bias"], matched against variable names.
    paths = [v.path for v in model.trainable_variables]
    assert exempt == {p for p in paths if any(x in p for x in ("LayerNorm", "layer_norm", "bias"))}
    assert any(p.endswith("output_bias") for p in exempt) and len(exempt) == 28
    for name in ("adamw", "lamb"):
        optimizer = create_optimizer(model, 1e-3, 10, optimizer=name, weight_decay_rate=0.5)
        optimizer.build(model.trainable_variables)
        decayed = {v.path for v in model.trainable_variables if optimizer._use_weight_decay(v)}
        assert decayed and not decayed & exempt
        assert decayed | exempt == {v.path for v in model.trainable_variables}
    with pytest.raises(ValueError, match="Unknown optimizer"):
        create_optimizer(model, 1e-3, 10, optimizer="sgd")


def test_decay_shrinks_kernels_but_not_layer_norm():
    model = BertPretrainer(BertEncoder(**TINY))
    optimizer = create_optimizer(model, 0.1, 10, weight_decay_rate=0.5)
    before = {v.path: np.array(v) for v in model.trainable_variables}
    zeros = [keras.ops.zeros_like(v) for v in model.trainable_variables]
    optimizer.apply_gradients(zip(zeros, model.trainable_variables))  # step 0: lr 0.1 (no warmup)
    for v in model.trainable_variables:
        if v.path.endswith("gamma"):
            np.testing.assert_array_equal(np.array(v), before[v.path])
        elif v.path.endswith("kernel"):
            np.testing.assert_allclose(np.array(v), before[v.path] * (1 - 0.1 * 0.5), rtol=1e-6)
