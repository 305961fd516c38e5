"""`python -m keras_bert.export.cli` fails well (issue 54): bad input is one line, a non-zero exit,
no traceback and nothing written; an existing `--version` is refused unless
`--overwrite_version`, which replaces it whole. The cases fail before a model is loaded, so the
model folder needs no weights."""

import json
import os

import pytest

from tests.keras_bert.cli.bad_input_test import CONFIG, VOCAB, cli, files_under, refused

PROGRAM = "keras_bert.export.cli"


@pytest.fixture()
def run_dir(tmp_path):
    """A fine-tuning output_dir's layout (best/ with bert_config.json and vocab.txt)."""
    best = tmp_path / "run" / "best"
    best.mkdir(parents=True)
    (best / "bert_config.json").write_text(json.dumps(CONFIG))
    (best / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    (tmp_path / "a_file").write_text("not a folder\n")
    return tmp_path / "run"


def export(run_dir, *args):
    return cli(PROGRAM, "--task_name=sst-2", f"--init_checkpoint={run_dir}",
               "--formats=saved_model", *args)


def test_bad_paths_and_values_are_one_line_and_write_nothing(run_dir):
    root, best = run_dir.parent, run_dir / "best"
    out = root / "exports"
    cases = [
        ([f"--export_dir={root / 'a_file'}"],
         f"--export_dir {root / 'a_file'} is a file, not a folder: name a folder (it is created "
         "if missing)."),
        ([f"--export_dir={root / 'a_file' / 'x'}"],
         f"--export_dir {root / 'a_file' / 'x'}: {root / 'a_file'} is a file, not a folder, so "
         "nothing can be written under it; name a path in a folder."),
        ([f"--export_dir={out}", f"--bert_config_file={best}"],
         f"--bert_config_file {best} is a folder, not a file: pass {best / 'bert_config.json'}."),
        ([f"--export_dir={out}", f"--vocab_file={best}"],
         f"--vocab_file {best} is a folder, not a file: pass {best / 'vocab.txt'}."),
        ([f"--export_dir={out}", f"--init_checkpoint={root / 'nothing'}"],
         f"--init_checkpoint {root / 'nothing'} does not exist."),
        ([f"--export_dir={out}", "--formats=onnx"],
         "--formats=onnx: unknown ['onnx']; choose from ['saved_model', 'tflite']."),
        ([f"--export_dir={out}", "--formats=saved_model,onnx"],
         "--formats=saved_model,onnx: unknown ['onnx']; choose from ['saved_model', 'tflite']."),
        ([f"--export_dir={out}", "--max_seq_length=0"],
         "--max_seq_length=0: it must be at least 3 ([CLS], one token, [SEP])."),
        ([f"--export_dir={out}", "--max_seq_length=100"],
         "--max_seq_length=100 exceeds the model's max_position_embeddings=64: pass "
         "--max_seq_length=64 or less."),
        ([f"--export_dir={out}"],  # the task's default length, 128
         "--task_name=sst-2's default max_seq_length=128 exceeds the model's "
         "max_position_embeddings=64: pass --max_seq_length=64 or less."),
    ]
    before = files_under(root)
    for args, message in cases:
        refused(export(run_dir, *args), PROGRAM, message)
    assert files_under(root) == before


def test_an_existing_version_is_refused_without_overwrite_version(run_dir):
    out = run_dir.parent / "exports"
    version = out / "sst2" / "3"
    version.mkdir(parents=True)
    (version / "saved_model.pb").write_text("the version TF Serving is serving")
    before = files_under(out)
    refused(export(run_dir, f"--export_dir={out}", "--version=3", "--max_seq_length=32"), PROGRAM,
            f"--version=3: {version} already exists (TF Serving versions are immutable). Leave "
            "--version out for the next free one, or pass --overwrite_version to replace it.")
    assert files_under(out) == before
    assert (version / "saved_model.pb").read_text() == "the version TF Serving is serving"


def test_overwrite_replaces_a_version_whole(tmp_path):
    import keras_bert

    from keras_bert.export.serving.saved_model import export_saved_model
    from tests.test_case import TINY, randomize_weights

    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(VOCAB) + "\n")
    encoder = keras_bert.BertEncoder(**dict(TINY, vocab_size=len(VOCAB), max_position_embeddings=16))
    model = keras_bert.BertClassifier(encoder, num_classes=2)
    randomize_weights(model, scale=0.2)
    first = export_saved_model(model, tmp_path, "m", vocab, 8, labels=["a", "b"], version=1,
                               text_signature=False)
    with pytest.raises(FileExistsError, match="overwrite=True"):
        export_saved_model(model, tmp_path, "m", vocab, 8, labels=["c", "d"], version=1,
                           text_signature=False)
    again = export_saved_model(model, tmp_path, "m", vocab, 8, labels=["c", "d"], version=1,
                               text_signature=False, overwrite=True)
    assert again == first
    info = json.loads((tmp_path / "m" / "1" / "assets.extra" / "keras_bert_export.json").read_text())
    assert info["labels"] == ["c", "d"]
    assert os.listdir(tmp_path / "m") == ["1"]  # no staging folder, no old copy left
