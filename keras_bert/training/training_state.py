"""Resumable training checkpoints on every Keras backend: weights, optimizer and dropout state in one `.npz`.

`tf.train.Checkpoint` needs TensorFlow, so a JAX or PyTorch run could not resume from it. These
files hold, in order, every variable of the model (its weights and the dropout layers'
`SeedGenerator` states, see `random_states`) and of its optimizer (step count, moments), each
with its path and shape, and on PyTorch its global generator's state (Keras's dropout draws
from it there), so a resumed run continues exactly where the saved one stopped.
"""

import glob
import os
import re
import shutil

import keras
import numpy as np

from keras_bert.atomic_files import atomic_open

_NAME = re.compile(r"^ckpt-(\d+)\.npz$")
# PyTorch's global generator: Keras draws dropout masks from it on that backend when a layer's
# SeedGenerator has no seed of its own (a run resumed without it draws other masks).
_TORCH_RNG = "torch_rng_state"
_STAGING = "_temp"


def _variables(model):
    """`[(group, variable)]`: the model's variables, then its optimizer's."""
    return ([("model", v) for v in model.variables]
            + [("optimizer", v) for v in model.optimizer.variables])


def checkpoint_path(directory, step):
    """`<directory>/ckpt-<step>.npz`."""
    return os.path.join(directory, f"ckpt-{step}.npz")


def latest_training_state(directory):
    """The newest `ckpt-<step>.npz` in `directory`, or None."""
    found = []
    for path in glob.glob(os.path.join(glob.escape(directory), "ckpt-*.npz")):
        match = _NAME.match(os.path.basename(path))
        if match:
            found.append((int(match.group(1)), path))
    return max(found)[1] if found else None


def save_training_state(model, directory, step, max_to_keep=2):
    """Writes `model`'s and its optimizer's variables to `<directory>/ckpt-<step>.npz` (whole
    or not at all), then deletes all but the newest `max_to_keep` checkpoints."""
    arrays = {}
    for i, (group, variable) in enumerate(_variables(model)):
        arrays[f"{i:05d}"] = keras.ops.convert_to_numpy(variable)
        arrays[f"{i:05d}_path"] = np.array(f"{group}/{variable.path}")
    if keras.config.backend() == "torch":
        import torch

        arrays[_TORCH_RNG] = torch.get_rng_state().numpy()
    path = checkpoint_path(directory, step)
    # Written in <directory>/_temp, then renamed: a run killed mid-write (a checkpoint takes
    # a while) leaves its partial file there, out of the way, and the next save clears it.
    staging = os.path.join(directory, _STAGING)
    shutil.rmtree(staging, ignore_errors=True)
    with atomic_open(os.path.join(staging, os.path.basename(path)), "wb") as f:
        np.savez(f, **arrays)
    os.replace(os.path.join(staging, os.path.basename(path)), path)
    shutil.rmtree(staging, ignore_errors=True)
    kept = sorted((int(_NAME.match(os.path.basename(p)).group(1)), p)
                  for p in glob.glob(os.path.join(glob.escape(directory), "ckpt-*.npz"))
                  if _NAME.match(os.path.basename(p)))
    for _, old in kept[:-max_to_keep]:
        os.remove(old)
    return path


def restore_training_state(model, path):
    """Assigns the variables saved at `path` to `model` and its (built) optimizer; returns the
    saved global generator state to give `set_generator_state` (PyTorch), else None.

    Raises:
        ValueError: the file was written by a model or optimizer of another shape (it names
            the first variable that differs).
    """
    variables = _variables(model)
    with np.load(path) as saved:
        count = sum(1 for key in saved.files if not key.endswith("_path") and key != _TORCH_RNG)
        if count != len(variables):
            raise ValueError(
                f"{path} holds {count} variables but this model and optimizer have "
                f"{len(variables)}: it was written by another model or optimizer. Use a new "
                "output_dir, or the settings of the run that wrote it.")
        for i, (group, variable) in enumerate(variables):
            value = saved[f"{i:05d}"]
            if tuple(value.shape) != tuple(variable.shape):
                raise ValueError(
                    f"{path}: {saved[f'{i:05d}_path']} has shape {value.shape}, but this "
                    f"model's {group}/{variable.path} has {tuple(variable.shape)}: it was "
                    "written by another model. Use a new output_dir.")
            variable.assign(value)
        if _TORCH_RNG in saved.files and keras.config.backend() == "torch":
            return saved[_TORCH_RNG]
    return None


def set_generator_state(state):
    """Puts back the global generator state `restore_training_state` returned (PyTorch). Call
    it where the saved run stood: at the first training step, after `fit` has set up its data
    loader (which draws from that generator once)."""
    import torch

    torch.set_rng_state(torch.from_numpy(state))
