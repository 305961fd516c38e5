"""The run-folder layout: which folder holds a checkpoint's config and vocabulary.

The layout itself is spelled out here ("best", "checkpoints", "bert_model.ckpt"), not read from
the module under test: these are the paths users pass and the docs show.
"""

import pytest

from keras_bert.checkpoints import run_folder


def _touch(path, text=""):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_output_dir_of_a_run_with_a_best_checkpoint_resolves_to_best(tmp_path):
    _touch(tmp_path / "best" / "bert_config.json", "{}")
    _touch(tmp_path / "best" / "bert_model.ckpt.index")
    assert run_folder.model_folder(tmp_path) == str(tmp_path / "best")
    assert run_folder.best_checkpoint_prefix(str(tmp_path)) == str(tmp_path / "best" / "bert_model.ckpt")


def test_run_stopped_before_its_first_evaluation_is_not_a_model(tmp_path):
    # The CLIs write best/vocab.txt at the start; best/ has no config or weights until an evaluation.
    _touch(tmp_path / "best" / "vocab.txt", "[PAD]\n")
    _touch(tmp_path / "checkpoints" / "ckpt-1.index")
    assert run_folder.model_folder(tmp_path) == str(tmp_path)
    assert run_folder.best_checkpoint_prefix(str(tmp_path)) is None


@pytest.mark.parametrize("name", ["bert_model.ckpt", "model.ckpt-1000"])
def test_checkpoint_prefix_resolves_to_its_folder(tmp_path, name):
    _touch(tmp_path / "bert_config.json", "{}")
    _touch(tmp_path / (name + ".index"))
    assert run_folder.model_folder(str(tmp_path / name)) == str(tmp_path)


def test_model_folder_is_itself(tmp_path):
    _touch(tmp_path / "bert_config.json", "{}")
    _touch(tmp_path / "vocab.txt", "[PAD]\n")
    assert run_folder.model_folder(str(tmp_path)) == str(tmp_path)


def test_layout_paths(tmp_path):
    out = str(tmp_path)
    assert run_folder.best_dir(out) == f"{out}/best"
    assert run_folder.best_metrics_file(out) == f"{out}/best/metrics.json"
    assert run_folder.training_checkpoints_dir(out) == f"{out}/checkpoints"
