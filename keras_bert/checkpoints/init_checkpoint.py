"""`load_init_checkpoint`: warm-start any keras_bert model from any checkpoint kind we read."""

import json
import os

from keras_bert.checkpoints import run_folder
from keras_bert.checkpoints.hf_checkpoint import load_hf_checkpoint
from keras_bert.tensorflow_extra import import_tensorflow


def _is_hf_dir(path):
    return os.path.isdir(path) and os.path.exists(os.path.join(path, "config.json"))


# bert_config.json keys that shape no weight: a budget-recipe run trains without dropout but
# saves the fine-tuning rates, and warm-starting from it must not be refused for that.
_NOT_IN_WEIGHTS = ("hidden_dropout_prob", "attention_probs_dropout_prob", "initializer_range")


def _check_config(model, config_path, path):
    """Our run directories carry bert_config.json: compare its weight-shaping keys before
    reading any tensor."""
    if not os.path.exists(config_path):
        return
    with open(config_path) as f:
        saved = json.load(f)
    encoder = getattr(model, "encoder", model)
    ours = encoder.bert_config.to_dict()
    differ = {k: (saved[k], ours[k]) for k in ours
              if k in saved and saved[k] != ours[k] and k not in _NOT_IN_WEIGHTS}
    if differ:
        details = ", ".join(f"{k}: checkpoint {a} vs model {b}" for k, (a, b) in differ.items())
        raise ValueError(
            f"{path} was trained with another config ({details}). Build the model from its "
            f"config, bert_config_file={config_path}, or pass a matching checkpoint."
        )


def _check_heads(report, path, require_heads):
    if require_heads and report.heads_not_in_checkpoint:
        raise ValueError(
            f"{path} has no weights for {', '.join(report.heads_not_in_checkpoint)}: it is not "
            "a fine-tuned checkpoint of this task, so evaluating it would score a random head. "
            "Pass the <output_dir>/best of a fine-tuning run, or fine-tune first (`do_train`)."
        )
    return report


def load_init_checkpoint(model, path, require_heads=False):
    """Loads `path` into `model` for a warm start and returns a short description.

    Accepted: an HF BERT directory (config.json + safetensors); a google-research TF1
    checkpoint prefix (or a directory with one); a fine-tuning run's output_dir (its `best/`);
    a keras_bert pretraining directory or `ckpt-N` prefix (object-based, read through
    `model.checkpoint_items`, optimizer state ignored). The
    encoder must match exactly; heads load where both sides have them. `require_heads`: every
    head of `model` must be in the checkpoint (evaluating a fine-tuned model), else `ValueError`.
    """
    path = os.fspath(path)
    if run_folder.best_checkpoint_prefix(path) or _is_hf_dir(run_folder.best_dir(path)):
        path = run_folder.best_dir(path)  # a fine-tuning run's output_dir: its best
    if _is_hf_dir(path):
        report = _check_heads(load_hf_checkpoint(model, path), path, require_heads)
        return f"HF checkpoint {path}: {len(report.loaded)} tensors"
    # Everything else is a TensorFlow checkpoint (an HF directory needs no TensorFlow).
    tf = import_tensorflow(f"Reading the TensorFlow checkpoint {path}")
    from keras_bert.checkpoints.tf1_checkpoint import load_tf1_checkpoint

    prefix = tf.train.latest_checkpoint(path) if os.path.isdir(path) else path
    if prefix is None or not tf.io.gfile.exists(prefix + ".index"):
        if os.path.isdir(path):
            report = load_tf1_checkpoint(model, path)  # a directory with one bert_model.ckpt
            _check_heads(report, path, require_heads)
            return f"TF1 checkpoint {path}: {len(report.loaded)} tensors"
        raise FileNotFoundError(
            f"{path}: no checkpoint there (expected a checkpoint prefix with a "
            ".index file, a training output directory, or an HF model directory)."
        )
    names = dict(tf.train.list_variables(prefix))
    if any(name.startswith("bert/") for name in names):
        report = _check_heads(load_tf1_checkpoint(model, prefix), prefix, require_heads)
        return f"TF1 checkpoint {prefix}: {len(report.loaded)} tensors"
    items = model.checkpoint_items
    if require_heads and set(items) == {"encoder"}:  # a task model: its head is not in there
        raise ValueError(
            f"{prefix} is a keras_bert training checkpoint, which stores only the encoder; "
            "evaluate the <output_dir>/best checkpoint of a fine-tuning run instead."
        )
    _check_config(model, os.path.join(os.path.dirname(prefix), "bert_config.json"), path)
    status = tf.train.Checkpoint(**items).read(prefix).expect_partial()
    status.assert_existing_objects_matched()
    return f"keras_bert checkpoint {prefix}: {', '.join(sorted(items))}"
