"""`keras.distribution` on JAX with 4 virtual CPU devices: data-parallel and model-parallel
training give the single-device losses, with the weights laid out as asked."""

import json
import os
import subprocess
import sys
import textwrap

import keras
import numpy as np
import pytest

pytestmark = pytest.mark.backend_portable

# One process per mode: the device count is fixed when JAX starts.
TRAIN = textwrap.dedent(
    """
    import json, os, sys
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    os.environ["KERAS_BACKEND"] = "jax"
    import keras
    import numpy as np
    from keras_bert import BertClassifier, BertEncoder
    from keras_bert.training import data_parallel, model_parallel

    mode = sys.argv[1]
    if mode == "data":
        keras.distribution.set_distribution(data_parallel())
    elif mode == "model":
        keras.distribution.set_distribution(model_parallel(2, 2))
    keras.utils.set_random_seed(0)
    encoder = BertEncoder(vocab_size=50, hidden_size=16, num_hidden_layers=2,
                          num_attention_heads=4, intermediate_size=32,
                          max_position_embeddings=16, hidden_dropout_prob=0.0,
                          attention_probs_dropout_prob=0.0)
    model = BertClassifier(encoder, num_classes=3, dropout=0.0)
    rng = np.random.default_rng(0)
    for variable in model.weights:  # the same start in every mode
        variable.assign(rng.normal(0, 0.2, variable.shape).astype("float32"))
    x = {"token_ids": rng.integers(1, 50, (32, 12)).astype("int32"),
         "segment_ids": np.zeros((32, 12), "int32"),
         "padding_mask": (np.arange(12)[None] < rng.integers(4, 13, 32)[:, None]).astype("int32")}
    y = rng.integers(0, 3, 32)
    model.compile(optimizer=keras.optimizers.Adam(1e-2),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    kernel = next(v for v in model.weights if v.path.endswith("intermediate/kernel"))
    sharding = kernel.value.sharding
    print(json.dumps({
        "loss": history.history["loss"],
        "devices": len(sharding.device_set),
        "replicated": bool(sharding.is_fully_replicated),
        "shard_shape": list(sharding.shard_shape(kernel.shape)),
        "logits": np.asarray(model.predict(x, verbose=0)).tolist(),
    }))
    """
)


def _train(mode):
    environment = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    done = subprocess.run([sys.executable, "-c", TRAIN, mode], capture_output=True, text=True,
                          env=environment)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(keras.config.backend() == "torch", reason="runs JAX in a subprocess; once "
                    "per environment is enough (the JAX run of make test-core and make test)")
def test_data_and_model_parallel_training_match_one_device():
    pytest.importorskip("jax")  # the TensorFlow environment installs it with the test extra
    single, data, model = _train("single"), _train("data"), _train("model")
    # Data parallel: replicas hold the same, whole weights on all 4 devices.
    assert data["devices"] == 4 and data["replicated"] and data["shard_shape"] == [16, 32]
    # Model parallel on a 2 x 2 mesh: the intermediate kernel's units split in two.
    assert model["devices"] == 4 and not model["replicated"] and model["shard_shape"] == [16, 16]
    for run in (data, model):
        # The same losses and outputs up to float32 summation order across devices.
        np.testing.assert_allclose(run["loss"], single["loss"], rtol=1e-5)
        np.testing.assert_allclose(run["logits"], single["logits"], atol=1e-4)
    assert single["loss"][-1] < single["loss"][0]
