"""`keras_bert.cli.export_hf_checkpoint`: a checkpoint read by our loaders and written back as a
Hugging Face `BertForPreTraining` folder. The oracle is transformers: the folder written must
give the source model's own masked-LM logits in PyTorch (exactly in float32; to float16's
rounding in float16)."""

import json
import subprocess
import sys

import numpy as np
import pytest
import torch
import transformers

from tests.keras_bert.cli.tiny_hf_pretrainer import write_tiny_hf_pretrainer

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *"the cat sat on a mat dog ran .".split()]


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    return write_tiny_hf_pretrainer(tmp_path_factory.mktemp("hf_source"), VOCAB, 0.3)


def logits(folder):
    model = transformers.BertForPreTraining.from_pretrained(str(folder)).eval()
    ids = torch.tensor([[2, 5, 6, 4, 8, 9, 10, 3]])
    with torch.no_grad():
        return model(input_ids=ids, attention_mask=torch.ones_like(ids)).prediction_logits.numpy()


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "keras_bert.cli.export_hf_checkpoint", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("dtype, atol", [("float32", 1e-5), ("float16", 2e-2)])
def test_the_folder_gives_the_source_models_logits_in_transformers(source, tmp_path, dtype, atol):
    out = tmp_path / "hf"
    result = run_cli(f"--init_checkpoint={source}", f"--output_dir={out}", f"--dtype={dtype}")
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"BertForPreTraining, {dtype}" in result.stdout
    assert sorted(p.name for p in out.iterdir()) == [
        "bert_config.json", "config.json", "model.safetensors", "tokenizer_config.json", "vocab.txt"]
    assert json.loads((out / "bert_config.json").read_text())["hidden_size"] == 16
    want, got = logits(source), logits(out)
    np.testing.assert_allclose(got, want, atol=atol)
    if dtype == "float16":
        assert np.abs(got - want).max() > 0  # rounded, not a copy of the float32 weights


@pytest.mark.parametrize("args, message", [
    (["--init_checkpoint={missing}"], "--init_checkpoint"),
    (["--init_checkpoint={source}", "--vocab_file={short}"], "--vocab_file has 3 tokens"),
    (["--init_checkpoint={source}", "--dtype=int8"], "--dtype"),
])
def test_bad_input_is_refused_in_one_line(source, tmp_path, args, message):
    short = tmp_path / "short_vocab.txt"
    short.write_text("[PAD]\n[UNK]\n[CLS]\n")
    values = dict(source=source, missing=tmp_path / "nothing", short=short)
    result = run_cli(*[a.format(**values) for a in args], f"--output_dir={tmp_path / 'out'}")
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if line.startswith("export_hf_checkpoint.py: ")]
    assert len(errors) == 1 and message in errors[0], result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out" / "config.json").exists()
