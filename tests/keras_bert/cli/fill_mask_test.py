"""`keras_bert.cli.fill_mask` against HF transformers' own masked-LM on the same weights.

The checkpoint is a small random `BertForPreTraining` saved by transformers (config.json,
safetensors, vocab.txt): the CLI converts it, tokenizes with our reference tokenizer and
answers; the oracle is HF's tokenizer and PyTorch forward pass, then softmax and top-k.
"""

import json
import subprocess
import sys

import numpy as np
import pytest
import torch
import transformers

from tests.keras_bert.cli.tiny_hf_pretrainer import write_tiny_hf_pretrainer

WORDS = ("the cat dog sat ran on mat a big small house is was it good bad film movie very "
         "and , .").split()
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, "##s", "##ed"]
QUERIES = ["the cat [MASK] on the mat .", "[MASK] big dog [MASK] very good", "it was [MASK]"]
TOP_K = 4


@pytest.fixture(scope="module")
def hf_model_dir(tmp_path_factory):
    # initializer_range 0.5: far from uniform logits, so the top-k order is clear
    return write_tiny_hf_pretrainer(tmp_path_factory.mktemp("hf_bert"), VOCAB, 0.5)


def hf_answers(folder):
    tokenizer = transformers.BertTokenizer(str(folder / "vocab.txt"), do_lower_case=True)
    model = transformers.BertForPreTraining.from_pretrained(str(folder)).eval()
    answers = []
    for query in QUERIES:
        batch = tokenizer(query, return_tensors="pt")
        with torch.no_grad():
            logits = model(**batch).prediction_logits[0].numpy().astype(np.float64)
        masks = []
        for position in np.flatnonzero(batch["input_ids"][0].numpy() == VOCAB.index("[MASK]")):
            row = logits[position]
            probabilities = np.exp(row - row.max()) / np.exp(row - row.max()).sum()
            best = np.argsort(-row)[:TOP_K]
            masks.append([(VOCAB[i], probabilities[i]) for i in best])
        answers.append(masks)
    return answers


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "keras_bert.cli.fill_mask", *args],
                          capture_output=True, text=True, timeout=300)


def test_answers_equal_hf_masked_lm(hf_model_dir, tmp_path):
    output = tmp_path / "answers.json"
    result = run_cli(f"--init_checkpoint={hf_model_dir}", f"--top_k={TOP_K}",
                     "--max_seq_length=32", f"--output_file={output}", *QUERIES)
    assert result.returncode == 0, result.stderr[-2000:]
    ours = json.loads(output.read_text())["answers"]
    expected = hf_answers(hf_model_dir)
    assert [a["query"] for a in ours] == QUERIES
    for answer, masks in zip(ours, expected):
        assert len(answer["masks"]) == len(masks)  # one entry per [MASK], in order
        for got, want in zip(answer["masks"], masks):
            assert [t["token"] for t in got] == [token for token, _ in want]
            # The JSON rounds probabilities to 4 decimals.
            np.testing.assert_allclose([t["probability"] for t in got], [p for _, p in want],
                                       atol=1e-4)
    assert "[MASK] 2:" in result.stdout  # the second query's second mask is printed


@pytest.mark.parametrize("args, message", [
    (["it was good"], "[MASK]"),
    ([], "Give one or more queries"),
    (["--top_k=0", "it was [MASK]"], "--top_k"),
])
def test_bad_input_is_one_line(hf_model_dir, tmp_path, args, message):
    output = tmp_path / "answers.json"
    result = run_cli(f"--init_checkpoint={hf_model_dir}", f"--output_file={output}", *args)
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if line.startswith("fill_mask.py: ")]
    assert len(errors) == 1 and message in errors[0], result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert not output.exists()  # nothing half-written


def test_checkpoint_without_masked_lm_head_is_refused(tmp_path):
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=32,
                                     max_position_embeddings=32)
    transformers.BertModel(config).save_pretrained(tmp_path, safe_serialization=True)
    (tmp_path / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    result = run_cli(f"--init_checkpoint={tmp_path}", "it was [MASK]")
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if line.startswith("fill_mask.py: ")]
    assert len(errors) == 1 and "--init_checkpoint" in errors[0], result.stderr[-2000:]
    assert "Traceback" not in result.stderr
