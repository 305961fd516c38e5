"""google-research/bert TF1 checkpoints (`bert_model.ckpt` + `bert_config.json`) to and from keras_bert."""

import os
import pathlib

import tensorflow as tf

from keras_bert.checkpoints.weight_map import assign_weights, collect_weights
from keras_bert.models.bert_config import BertConfig
from keras_bert.models.bert_encoder import BertEncoder


def _checkpoint_prefix(path):
    """Accepts a checkpoint prefix, one of its files, or a directory holding one checkpoint."""
    path = os.fspath(path)
    for suffix in (".index", ".meta"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
    if ".data-" in os.path.basename(path):
        path = path[: path.rindex(".data-")]
    if os.path.isdir(path):
        found = tf.train.latest_checkpoint(path)
        if found is None:
            indexes = sorted(pathlib.Path(path).glob("*.index"))
            if len(indexes) != 1:
                raise FileNotFoundError(
                    f"{path} holds {len(indexes)} TF checkpoints (*.index files); pass the "
                    "checkpoint prefix, e.g. .../bert_model.ckpt."
                )
            found = str(indexes[0])[: -len(".index")]
        path = found
    if not os.path.exists(path + ".index"):
        raise FileNotFoundError(
            f"No TF checkpoint at {path!r} ({path}.index does not exist). Pass the prefix shared "
            "by the .index and .data-* files, e.g. uncased_L-12_H-768_A-12/bert_model.ckpt."
        )
    return path


def read_tf1_weights(path):
    """`{name: array}` of every tensor in a TF1 checkpoint."""
    prefix = _checkpoint_prefix(path)
    reader = tf.train.load_checkpoint(prefix)
    names = reader.get_variable_to_shape_map()
    if not any(name.startswith("bert/") for name in names):
        raise ValueError(
            f"{prefix} is a TF checkpoint but not a google-research BERT one: none of its "
            f"{len(names)} tensors is under 'bert/' (e.g. {sorted(names)[:3]}). For a "
            "checkpoint written by Keras / tf.train.Checkpoint, use model.load_weights or "
            "tf.train.Checkpoint(**model.checkpoint_items).read(...)."
        )
    return {name: reader.get_tensor(name) for name in names}


def load_tf1_checkpoint(model, path):
    """Loads a google-research BERT TF1 checkpoint into `model`, strictly. Returns a `LoadReport`."""
    return assign_weights(model, read_tf1_weights(path), source=f"TF1 checkpoint {path}")


def encoder_from_tf1_checkpoint(checkpoint, bert_config_file, **kwargs):
    """Builds a `BertEncoder` from `bert_config.json` and loads the TF1 checkpoint into it."""
    encoder = BertEncoder.from_bert_config(BertConfig.from_json_file(bert_config_file), **kwargs)
    load_tf1_checkpoint(encoder, checkpoint)
    return encoder


def save_tf1_checkpoint(model, prefix):
    """Writes `model`'s weights as a google-research BERT TF1 checkpoint at `prefix`.

    Also writes `bert_config.json` next to it, so google-research/bert's scripts (and
    `encoder_from_tf1_checkpoint`) can read the pair. Returns the prefix.
    """
    prefix = os.fspath(prefix)
    os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)
    weights = collect_weights(model)
    names = sorted(weights)
    tf.raw_ops.SaveV2(
        prefix=prefix,
        tensor_names=names,
        shape_and_slices=[""] * len(names),
        tensors=[tf.constant(weights[name]) for name in names],
    )
    encoder = getattr(model, "encoder", model)
    encoder.bert_config.to_json_file(
        os.path.join(os.path.dirname(os.path.abspath(prefix)), "bert_config.json")
    )
    return prefix
