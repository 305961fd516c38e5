"""Checks of a tool's file and folder flags, run first: an output that cannot be written, or an
input file that is a folder, is a one-line usage error naming the flag, before any work and
before anything is written.

Each check takes the flag's name and value (`None` or empty: not given, nothing to check) and
raises `app.UsageError`. Whether an input that does not exist is an error stays with the tool
(some read defaults from an `--init_checkpoint` folder instead).
"""

import glob
import os

from absl import app


def check_output_dir(flag, path):
    """`path` (the value of `--flag`) can be the folder a tool writes into: an existing folder,
    or one that can be made (the nearest existing folder above it is writable)."""
    if not path:
        return
    path = os.fspath(path)
    if os.path.exists(path) and not os.path.isdir(path):
        raise app.UsageError(f"--{flag} {path} is a file, not a folder: name a folder (it is "
                             "created if missing).")
    _check_writable(flag, path, path)


def check_output_file(flag, path):
    """`path` (the value of `--flag`, or one of a list's) can be written: not a folder, and in
    a folder that exists or can be made."""
    if not path:
        return
    path = os.fspath(path)
    if os.path.isdir(path):
        raise app.UsageError(f"--{flag} {path} is a folder, not a file: name the file to write.")
    _check_writable(flag, path, os.path.dirname(os.path.abspath(path)))


def check_input_file(flag, path, expected=None):
    """`path` (the value of `--flag`), when it exists, is a file, not a folder. `expected`: the
    file's usual name (`"bert_config.json"`), suggested when the folder holds one."""
    if not path:
        return
    path = os.fspath(path)
    if os.path.isdir(path):
        inside = os.path.join(path, expected) if expected else None
        what = (f"pass {inside}" if inside and os.path.isfile(inside)
                else "pass the file itself, not its folder")
        raise app.UsageError(f"--{flag} {path} is a folder, not a file: {what}.")


def check_checkpoint(flag, path):
    """`path` (the value of `--flag`), when given, names a checkpoint on disk: a folder, a file
    or a checkpoint prefix (`<path>.index`)."""
    if not path:
        return
    path = os.fspath(path)
    # keras_bert.checkpoints.run_folder.names_something, without importing keras_bert.checkpoints
    # (these checks run before TensorFlow is loaded).
    if not (os.path.exists(path) or glob.glob(glob.escape(path) + ".*")):
        raise app.UsageError(f"--{flag} {path} does not exist.")


def check_input_dir(flag, path):
    """`path` (the value of `--flag`), when it exists, is a folder, not a file."""
    if path and os.path.exists(path) and not os.path.isdir(path):
        raise app.UsageError(f"--{flag} {os.fspath(path)} is a file, not a folder: pass the "
                             "folder that holds the files.")


def _check_writable(flag, path, folder):
    """The nearest existing folder at or above `folder` is writable (so `path` can be made)."""
    existing = os.path.abspath(folder)
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise app.UsageError(f"--{flag} {path}: {existing} is a file, not a folder, so nothing "
                             "can be written under it; name a path in a folder.")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise app.UsageError(f"--{flag} {path}: {existing} is not writable (permission "
                             "denied); name a folder you can write to.")
