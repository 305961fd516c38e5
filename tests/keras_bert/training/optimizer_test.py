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


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="a TensorFlow-backend path")
@pytest.mark.parametrize("name", ["adamw", "lamb"])
def test_the_xla_update_trains_exactly_as_keras_own_update(name):
    """Keras's own update (xla_update=False) is the oracle: three train_on_batch steps of the same
    model, clipping and decay on, end at the same weights and losses through either update."""
    rng = np.random.default_rng(0)
    x = {"token_ids": rng.integers(0, TINY["vocab_size"], (4, 12)).astype("int32"),
         "segment_ids": np.zeros((4, 12), "int32"), "padding_mask": np.ones((4, 12), "int32")}
    y = rng.normal(size=(4, 12, TINY["hidden_size"])).astype("float32")
    runs = {}
    for xla_update in (False, True):
        keras.utils.set_random_seed(1)
        inputs = {k: keras.Input((12,), dtype="int32", name=k) for k in x}
        encoder = BertEncoder(**TINY)
        model = keras.Model(inputs, encoder(inputs)["sequence_output"])
        optimizer = create_optimizer(model, 1e-2, 10, num_warmup_steps=1, optimizer=name,
                                     weight_decay_rate=0.1, global_clipnorm=0.5,
                                     xla_update=xla_update)
        assert ("_backend_apply_gradients" in vars(optimizer)) == xla_update  # the XLA path is on
        model.compile(optimizer=optimizer, loss="mse", jit_compile=False)
        losses = [float(model.train_on_batch(x, y)) for _ in range(3)]
        runs[xla_update] = losses, [np.array(v) for v in model.trainable_variables]
    (plain_losses, plain_weights), (xla_losses, xla_weights) = runs[False], runs[True]
    np.testing.assert_allclose(xla_losses, plain_losses, rtol=1e-5)
    assert plain_losses[-1] < plain_losses[0]  # the steps did train
    for plain, xla in zip(plain_weights, xla_weights):
        np.testing.assert_allclose(xla, plain, rtol=1e-5, atol=1e-6)
