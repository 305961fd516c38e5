"""The layout of a fine-tuning run's `output_dir`, in one place.

    <output_dir>/
        checkpoints/            training checkpoints (model, optimizer, data position): resume
        best/                   the best evaluation's weights, a whole model folder:
            bert_model.ckpt.*   google-research's TF1 format, heads included
            bert_config.json
            vocab.txt
            metrics.json        the evaluation that made it the best
        eval_history.jsonl, eval_results.json, predictions.json, ...

`--init_checkpoint` accepts a run's `output_dir` wherever it accepts `best/` itself:
`model_folder` says which folder holds the model's files.
"""

import os

BEST_DIR = "best"
BEST_CHECKPOINT = "bert_model.ckpt"
TRAINING_CHECKPOINTS_DIR = "checkpoints"
CONFIG_FILE = "bert_config.json"
VOCAB_FILE = "vocab.txt"
METRICS_FILE = "metrics.json"


def best_dir(output_dir):
    """`<output_dir>/best`: the best checkpoint's model folder."""
    return os.path.join(output_dir, BEST_DIR)


def best_metrics_file(output_dir):
    """`<output_dir>/best/metrics.json`: the evaluation that made the best checkpoint."""
    return os.path.join(best_dir(output_dir), METRICS_FILE)


def training_checkpoints_dir(output_dir):
    """`<output_dir>/checkpoints`: the resumable training checkpoints."""
    return os.path.join(output_dir, TRAINING_CHECKPOINTS_DIR)


def best_checkpoint_prefix(output_dir):
    """The prefix of `output_dir`'s best checkpoint, or `None` if it is not a run with one."""
    prefix = os.path.join(best_dir(output_dir), BEST_CHECKPOINT)
    return prefix if os.path.exists(prefix + ".index") else None


def model_folder(path):
    """The folder holding the config and vocabulary of the checkpoint `path` names.

    `path` may be a fine-tuning run's `output_dir` (its `best/`, once it holds a config), a
    model folder, or a checkpoint prefix (its folder).
    """
    path = os.fspath(path)
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    best = best_dir(folder)
    return best if os.path.exists(os.path.join(best, CONFIG_FILE)) else folder


def names_something(path):
    """Whether `path` is on disk: a file, a folder, or a checkpoint prefix (`<path>.index`,
    `<path>.npz`, ...)."""
    import glob

    path = os.fspath(path)
    return os.path.exists(path) or bool(glob.glob(glob.escape(path) + ".*"))


def model_config(path):
    """The `BertConfig` of the checkpoint `path` names (see `model_folder`): its folder's
    `bert_config.json` (google / keras_bert), else a Hugging Face `config.json`."""
    from keras_bert.checkpoints.hf_checkpoint import read_hf_config
    from keras_bert.models.bert_config import BertConfig

    if not names_something(path):
        raise FileNotFoundError(f"{os.fspath(path)} does not exist.")
    folder = model_folder(path)
    if os.path.exists(os.path.join(folder, CONFIG_FILE)):
        return BertConfig.from_json_file(os.path.join(folder, CONFIG_FILE))
    if os.path.exists(os.path.join(folder, "config.json")):
        return read_hf_config(folder)
    raise FileNotFoundError(
        f"No model config for {path}: expected {CONFIG_FILE} (google / keras_bert) or "
        f"config.json (Hugging Face) in {folder}."
    )
