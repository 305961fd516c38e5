"""Scale-out with `keras.distribution` (JAX): data parallelism, and a model-parallel layout of
the encoder's weights. The tf.distribute strategies (`distribute.py`) are the TensorFlow path."""

import keras

from keras_bert.api_export import keras_bert_export

# Megatron-style sharding of one encoder block over the "model" mesh axis: the query, key,
# value and intermediate projections split their output units (whole heads, whole hidden
# units), the attention-output and output projections split their inputs, so each block needs
# one all-reduce after attention and one after the feed-forward. Embeddings split the hidden
# dimension. Everything else (LayerNorm, heads) is replicated.
# Keys are regular expressions that must match a weight's whole path (`LayoutMap` uses
# `re.fullmatch`), so a task model's prefix is allowed with ".*".
ENCODER_LAYOUT = {
    r".*attention/(query|key|value)/kernel": (None, "model"),
    r".*attention/(query|key|value)/bias": ("model",),
    r".*attention_output/kernel": ("model", None),
    r".*intermediate/kernel": (None, "model"),
    r".*intermediate/bias": ("model",),
    r".*transformer_layer_\d+/output/kernel": ("model", None),
    r".*embeddings/(token_embedding/embeddings|position_embeddings|segment_embedding/embeddings)":
        (None, "model"),
}


@keras_bert_export("keras_bert.training.data_parallel")
def data_parallel(devices=None):
    """`keras.distribution.DataParallel` over `devices` (default: every device JAX sees): the
    weights are replicated and each batch is split across the devices."""
    return keras.distribution.DataParallel(devices=devices)


@keras_bert_export("keras_bert.training.model_parallel")
def model_parallel(batch_devices, model_devices, devices=None):
    """`keras.distribution.ModelParallel` on a `(batch, model)` device mesh with the encoder
    layout `ENCODER_LAYOUT`: batches split over `batch_devices`, each block's large kernels over
    `model_devices`.

    Example (one CPU device here; on 8 accelerators, `model_parallel(4, 2)`):
    >>> distribution = keras_bert.training.model_parallel(1, 1)
    >>> distribution.device_mesh.shape, distribution.device_mesh.axis_names
    ((1, 1), ('batch', 'model'))
    """
    devices = devices or keras.distribution.list_devices()
    if batch_devices * model_devices != len(devices):
        raise ValueError(
            f"A {batch_devices} x {model_devices} mesh needs {batch_devices * model_devices} "
            f"devices; {len(devices)} are available. Choose factors of {len(devices)}."
        )
    mesh = keras.distribution.DeviceMesh(
        (batch_devices, model_devices), axis_names=("batch", "model"), devices=devices)
    layout_map = keras.distribution.LayoutMap(mesh)
    for pattern, axes in ENCODER_LAYOUT.items():
        layout_map[pattern] = axes
    return keras.distribution.ModelParallel(layout_map=layout_map, batch_dim_name="batch")
