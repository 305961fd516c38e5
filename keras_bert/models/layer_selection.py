"""`select_layers`: a shallower copy of a BERT model, from some of its own transformer layers."""

import dataclasses

from keras_bert.api_export import keras_bert_export
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_task import BertTask


def _checked_layers(layers, num_hidden_layers):
    try:
        layers = [int(i) for i in layers]
    except (TypeError, ValueError):
        raise ValueError(f"layers={list(layers)}: give transformer layer indices (integers).") from None
    if not layers:
        raise ValueError("layers is empty: name at least one transformer layer to keep.")
    if sorted(set(layers)) != layers:
        raise ValueError(f"layers={layers}: give distinct layer indices in increasing order.")
    if layers[0] < 0 or layers[-1] >= num_hidden_layers:
        raise ValueError(
            f"layers={layers}: this model has transformer layers 0 to {num_hidden_layers - 1}."
        )
    return layers


@keras_bert_export("keras_bert.select_layers")
def select_layers(model, layers):
    """A copy of `model` that keeps only the transformer layers `layers`, in that order.

    The student initialisation of DistilBERT (Sanh et al. 2019: every other layer of the
    teacher) and of layer-dropping studies: the embeddings, the kept transformer layers, the
    pooler and any task head are copied from `model`, so the copy runs the same computation
    with the other layers skipped. `model` is left as it was.

    Args:
        model: a `BertEncoder`, or a task model on one (`BertQuestionAnswerer`,
            `BertClassifier`, `BertTokenClassifier`, ...).
        layers: increasing indices of the transformer layers to keep, e.g. `[0, 2, 4]`.

    Returns:
        a model of `model`'s class with `len(layers)` transformer layers.

    Example:

    >>> import keras_bert
    >>> teacher = keras_bert.BertQuestionAnswerer(keras_bert.BertEncoder(
    ...     vocab_size=20, hidden_size=8, num_hidden_layers=6, num_attention_heads=2,
    ...     intermediate_size=16, max_position_embeddings=16))
    >>> student = keras_bert.select_layers(teacher, [0, 2, 4])
    >>> student.encoder.num_hidden_layers
    3
    """
    encoder = model if isinstance(model, BertEncoder) else getattr(model, "encoder", None)
    if not isinstance(encoder, BertEncoder):
        raise ValueError(
            f"select_layers takes a BertEncoder or a task model on one, got {type(model).__name__}."
        )
    layers = _checked_layers(layers, encoder.num_hidden_layers)
    student = BertEncoder.from_bert_config(
        dataclasses.replace(encoder.bert_config, num_hidden_layers=len(layers)),
        attention_pattern=encoder.attention_pattern,
        dtype=encoder.dtype_policy,
        name=encoder.name,
    )
    student.embeddings.set_weights(encoder.embeddings.get_weights())
    for new, old in enumerate(layers):
        student.transformer_layers[new].set_weights(encoder.transformer_layers[old].get_weights())
    student.pooler.set_weights(encoder.pooler.get_weights())
    if model is encoder:
        return student
    if not isinstance(model, BertTask):
        raise ValueError(f"select_layers cannot rebuild a {type(model).__name__}: it is not a BertTask.")
    task = type(model)(student, **model.task_config(), name=model.name)
    heads = {layer.name: layer for layer in model.layers if layer is not encoder and layer.weights}
    for layer in task.layers:
        if layer is not student and layer.weights:
            layer.set_weights(heads[layer.name].get_weights())
    return task
