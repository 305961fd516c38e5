"""The Python recipe (`keras_bert.tasks` + `keras_bert.training.finetune`) and the command-line tools,
given the same settings, train the same model: the same predictions on SQuAD, MRPC and CoNLL subsets."""

import gzip
import json

import keras
import numpy as np
import pytest

import keras_bert
from keras_bert.checkpoints.tf1_checkpoint import save_tf1_checkpoint
from keras_bert.models.bert_config import BertConfig
from keras_bert.models.bert_encoder import BertEncoder
from tests.data_paths import shared_data_dir
from tests.keras_bert.cli.pretraining_cli_test import cli
from tests.test_case import randomize_weights

pytestmark = pytest.mark.large

TINY = {"vocab_size": 30522, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
        "intermediate_size": 32, "max_position_embeddings": 64}
# The flags and their FinetuneConfig fields (float32: the suite's other tests keep the default).
FLAGS = {"train_batch_size": 8, "num_train_steps": 4, "iterations_per_loop": 2,
         "learning_rate": 1e-3, "random_seed": 7, "dtype_policy": "float32",
         "eval_every_steps": 2}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """A tiny random BERT as a google-format folder: bert_model.ckpt, bert_config.json, vocab.txt."""
    folder = tmp_path_factory.mktemp("tiny_bert")
    encoder = BertEncoder.from_bert_config(BertConfig.from_dict(TINY))
    randomize_weights(encoder, seed=0, scale=0.3)  # outputs that differ between inputs
    save_tf1_checkpoint(encoder, str(folder / "bert_model.ckpt"))
    vocab = (shared_data_dir() / "vocab" / "bert-base-uncased-vocab.txt").read_text()
    (folder / "vocab.txt").write_text(vocab)
    return folder


@pytest.fixture(autouse=True)
def _keep_the_global_dtype_policy():
    policy = keras.config.dtype_policy()
    yield
    keras.config.set_dtype_policy(policy)


def _flags(**more):
    return [f"--{k}={v}" for k, v in {**FLAGS, **more}.items()]


def _python(tmp_path, model_dir, task, train_file, eval_file, **more):
    config = keras_bert.training.FinetuneConfig(str(tmp_path / "py"),
                                                init_checkpoint=str(model_dir), **FLAGS, **more)
    result = keras_bert.training.finetune(task, config, train_file, eval_file, verbose=0)
    return result, task.predict(result.model, result.eval_data)


def _assert_same_best_weights(tmp_path):
    """Both runs' best checkpoints hold the same weights."""
    from keras_bert.checkpoints.tf1_checkpoint import read_tf1_weights

    ours = read_tf1_weights(str(tmp_path / "py" / "best" / "bert_model.ckpt"))
    theirs = read_tf1_weights(str(tmp_path / "cli" / "best" / "bert_model.ckpt"))
    assert sorted(ours) == sorted(theirs)
    for name in ours:
        np.testing.assert_allclose(ours[name], theirs[name], atol=1e-5, err_msg=name)


def test_squad_recipe_equals_run_squad(model_dir, tmp_path):
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt") as f:
        dev = json.load(f)
    dev["data"] = [{"title": "t", "paragraphs": dev["data"][0]["paragraphs"][:3]}]
    squad = tmp_path / "squad.json"
    squad.write_text(json.dumps(dev))
    window = dict(max_seq_length=64, doc_stride=32, max_query_length=16)
    done = cli("run_squad", f"--init_checkpoint={model_dir}", f"--train_file={squad}",
               f"--predict_file={squad}", "--do_train", "--do_predict",
               f"--output_dir={tmp_path / 'cli'}", *_flags(**window))
    assert done.returncode == 0, done.stderr[-3000:]
    task = keras_bert.tasks.QuestionAnsweringTask(**window)
    result, predictions = _python(tmp_path, model_dir, task, str(squad), str(squad))
    cli_nbest = json.loads((tmp_path / "cli" / "nbest_predictions.json").read_text())
    assert json.loads((tmp_path / "cli" / "predictions.json").read_text()) == \
        predictions["predictions"]
    for qid, entries in predictions["nbest"].items():
        assert [e["text"] for e in entries] == [e["text"] for e in cli_nbest[qid]]
        np.testing.assert_allclose([e["start_logit"] for e in entries],
                                   [e["start_logit"] for e in cli_nbest[qid]], atol=1e-4)
    _assert_same_best_weights(tmp_path)
    # Training happened: the best evaluation is on record, and the scores are the file's.
    cli_results = json.loads((tmp_path / "cli" / "eval_results.json").read_text())
    assert result.metrics["step"] in (2, 4)
    assert task.score(result.eval_data, predictions)["f1"] == pytest.approx(cli_results["f1"])


def test_mrpc_recipe_equals_run_classifier(model_dir, tmp_path):
    glue = shared_data_dir() / "glue" / "MRPC"
    done = cli("run_classifier", "--task_name=MRPC", f"--data_dir={glue}",
               f"--init_checkpoint={model_dir}", "--do_train", "--do_eval",
               "--max_seq_length=32", "--max_train_examples=64",
               f"--output_dir={tmp_path / 'cli'}", *_flags())
    assert done.returncode == 0, done.stderr[-3000:]
    task = keras_bert.tasks.get_task("mrpc", max_seq_length=32)
    _, predictions = _python(tmp_path, model_dir, task, str(glue / "train.tsv"),
                             str(glue / "dev.tsv"), max_train_examples=64)
    rows = [line.split("\t") for line in
            (tmp_path / "cli" / "eval_predictions.tsv").read_text().splitlines()[1:]]
    assert len(rows) == len(predictions["labels"]) == 408
    assert [r[2] for r in rows] == predictions["labels"]
    np.testing.assert_allclose(np.array([[float(v) for v in r[3:]] for r in rows]),
                               predictions["probabilities"], atol=2e-6)
    assert np.ptp(predictions["probabilities"][:, 1]) > 2e-4  # varies 100x more than the tolerance
    _assert_same_best_weights(tmp_path)


def test_conll_recipe_equals_run_ner(model_dir, tmp_path):
    data = tmp_path / "conll"
    data.mkdir()
    for split in ("train", "valid"):
        with gzip.open(shared_data_dir() / "conll2003" / f"{split}.txt.gz", "rt") as f:
            (data / f"{split}.txt").write_text("".join(f.readlines()[:400]))
    done = cli("run_ner", f"--data_dir={data}", f"--init_checkpoint={model_dir}", "--do_train",
               "--do_eval", "--max_seq_length=32", f"--output_dir={tmp_path / 'cli'}",
               *_flags())
    assert done.returncode == 0, done.stderr[-3000:]
    task = keras_bert.tasks.TokenClassificationTask(max_seq_length=32)
    _, predictions = _python(tmp_path, model_dir, task, str(data / "train.txt"),
                             str(data / "valid.txt"))
    sentences = [block.splitlines() for block in
                 (tmp_path / "cli" / "valid_predictions.txt").read_text().split("\n\n") if block]
    assert [[line.split()[2] for line in s] for s in sentences] == predictions["tags"]
    _assert_same_best_weights(tmp_path)  # the tags alone are mostly "O" on a tiny model
