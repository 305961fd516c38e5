"""`run.json`: what made a fine-tuning run folder, so a run of something else is not resumed into it."""

import hashlib
import json
import os
import shutil

import numpy as np

from keras_bert.atomic_files import atomic_open
from keras_bert.checkpoints import run_folder

RUN_FILE = "run.json"
# The settings that shape what is trained: a resumed run must have the same.
TRAINING_KEYS = ("init_checkpoint", "train_batch_size", "learning_rate", "num_train_epochs",
                 "num_train_steps", "warmup_proportion", "weight_decay_rate",
                 "max_train_examples", "random_seed")


def data_fingerprint(*nests):
    """SHA-256 of arrays (dicts and tuples of them, in key order): what the model trains on."""
    digest = hashlib.sha256()

    def add(value):
        if isinstance(value, dict):
            for key in sorted(value):
                digest.update(str(key).encode())
                add(value[key])
        elif isinstance(value, (tuple, list)):
            for item in value:
                add(item)
        else:
            array = np.ascontiguousarray(value)
            digest.update(f"{array.dtype}{array.shape}".encode())
            digest.update(array.tobytes())

    for nest in nests:
        add(nest)
    return digest.hexdigest()


def run_record(task, config, train_data, targets):
    """The record of a run: task, input length, training data (file and fingerprint) and the
    settings of `TRAINING_KEYS`."""
    return {"task": task.name, "max_seq_length": task.max_seq_length,
            "train_file": None if train_data.path is None else os.fspath(train_data.path),
            "train_sha256": data_fingerprint(train_data.inputs, targets),
            **{key: _plain(getattr(config, key)) for key in TRAINING_KEYS}}


def claim_output_dir(output_dir, record, overwrite=False, log=print):
    """Makes `output_dir` this run's: a new folder, or one `record` made (to resume).

    Raises:
        ValueError: `output_dir` holds a run of another task, data or settings (the message
            names what differs), unless `overwrite`, which deletes that run's checkpoints,
            best model and evaluation history first.
    """
    path = os.path.join(output_dir, RUN_FILE)
    if os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
        differ = [key for key in record if key != "train_file" and old.get(key) != record[key]]
        if differ:
            what = ", ".join(f"{key} {_short(old.get(key))} -> {_short(record[key])}"
                             for key in differ)
            if not overwrite:
                raise ValueError(
                    f"`output_dir` {output_dir} holds a run of something else ({what}); "
                    "resuming it would mix the two. Use a new `output_dir`, or overwrite_output_dir=True "
                    "to delete that run and start over.")
            for name in (run_folder.TRAINING_CHECKPOINTS_DIR, run_folder.BEST_DIR):
                shutil.rmtree(os.path.join(output_dir, name), ignore_errors=True)
            for name in ("eval_history.jsonl", "eval_curves.png"):
                if os.path.exists(os.path.join(output_dir, name)):
                    os.remove(os.path.join(output_dir, name))
            log(f"overwrite_output_dir: deleted the run in {output_dir} ({what}).")
    with atomic_open(path) as f:
        json.dump(record, f, indent=1)


def _plain(value):
    """A JSON value: paths (`pathlib.Path`, say) as strings."""
    return os.fspath(value) if isinstance(value, os.PathLike) else value


def _short(value):
    text = str(value)
    return text[:12] if isinstance(value, str) and len(text) == 64 else text
