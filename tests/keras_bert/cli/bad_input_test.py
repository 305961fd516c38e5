"""Every command-line tool fails well (issue 54): bad input is one line that says what is wrong and
what to do, a non-zero exit, no traceback, and nothing written. `--help` exits 0 and lists the
tool's own flags; piped output carries no terminal escape codes. The real CLIs, in subprocesses,
on tiny inputs that fail before any training (docs/reliability.md, "Bad input: what each tool
says", lists each case)."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from tests.data_paths import first_dev_questions

ROOT = pathlib.Path(__file__).resolve().parents[3]
HINT = "(--help lists the flags.)"
# A 64-position model over a 40-token vocabulary: no weights are needed, every case fails first.
CONFIG = dict(vocab_size=40, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
              intermediate_size=12, max_position_embeddings=64)
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"w{i}" for i in range(35)]


def cli(module, *args):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def files_under(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def refused(done, program, message):
    """`done` failed with `program: message` and the help hint as its last lines, no traceback."""
    assert done.returncode != 0, done.stdout[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines[-2:] == [f"{program}: {message}", HINT], done.stderr[-3000:]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """A model folder (bert_config.json, vocab.txt), data of each task, a plain file, records."""
    root = tmp_path_factory.mktemp("inputs")
    model = root / "model"
    model.mkdir()
    (model / "bert_config.json").write_text(json.dumps(CONFIG))
    (model / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    (root / "glue").mkdir()
    for split in ("train", "dev"):
        (root / "glue" / f"{split}.tsv").write_text("w5 w6\t1\nw7 w8\t0\n" * 4)
    (root / "conll").mkdir()
    for split in ("train", "valid", "test"):
        (root / "conll" / f"{split}.txt").write_text("w5 NN B-NP B-ORG\nw6 VB B-VP O\n\n")
    (root / "squad.json").write_text(json.dumps(first_dev_questions(2)))
    (root / "corpus.txt").write_text("w5 w6 w7 .\nw8 w9 .\n\nw10 w11 .\nw12 .\n")
    (root / "lines.txt").write_text("w5 w6\n")
    (root / "a_file").write_text("not a folder\n")
    return root


@pytest.fixture(scope="module")
def records(inputs):
    """Pretraining records of token ids up to 39 (a 40-token vocabulary), 12 x 3."""
    from tests.keras_bert.training.distributed_training_test import write_records

    path = inputs / "records.tfrecord"
    write_records(str(path))
    return path


def finetuning_args(inputs, tool):
    """Flags that make `tool` (run_classifier, run_squad, run_ner) get as far as its data."""
    common = [f"--init_checkpoint={inputs / 'model'}", "--do_train", "--max_seq_length=32"]
    if tool == "run_classifier":
        return ["--task_name=tsv", f"--data_dir={inputs / 'glue'}", *common]
    if tool == "run_squad":
        return [f"--train_file={inputs / 'squad.json'}", "--doc_stride=16",
                "--max_query_length=8", *common]
    return [f"--data_dir={inputs / 'conll'}", *common]


def pretraining_args(inputs, records):
    return [f"--input_file={records}", f"--bert_config_file={inputs / 'model' / 'bert_config.json'}",
            "--max_seq_length=12", "--max_predictions_per_seq=3", "--num_warmup_steps=0"]


def corpus_args(inputs):
    return [f"--input_file={inputs / 'corpus.txt'}", f"--vocab_file={inputs / 'model' / 'vocab.txt'}",
            "--max_seq_length=16", "--max_predictions_per_seq=4"]


IS_A_FILE = "{path} is a file, not a folder: name a folder (it is created if missing)."
UNDER_A_FILE = ("{path}: {file} is a file, not a folder, so nothing can be written under it; "
                "name a path in a folder.")


@pytest.mark.parametrize("tool", ["run_classifier", "run_squad", "run_ner"])
def test_fine_tuning_output_dir_that_is_a_file_or_under_one(inputs, tool):
    before = files_under(inputs)
    for path, message in ((inputs / "a_file", IS_A_FILE), (inputs / "a_file" / "out", UNDER_A_FILE)):
        done = cli(f"keras_bert.cli.{tool}", *finetuning_args(inputs, tool), f"--output_dir={path}")
        refused(done, f"{tool}.py", "--output_dir " + message.format(path=path, file=inputs / "a_file"))
    assert files_under(inputs) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_an_unwritable_output_dir(inputs, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        done = cli("keras_bert.cli.run_classifier", *finetuning_args(inputs, "run_classifier"),
                   f"--output_dir={locked / 'out'}")
        refused(done, "run_classifier.py", f"--output_dir {locked / 'out'}: {locked} is not "
                "writable (permission denied); name a folder you can write to.")
        assert not any(locked.iterdir())
    finally:
        locked.chmod(0o755)


def test_other_tools_outputs_that_cannot_be_written(inputs, records):
    a_file, model = inputs / "a_file", inputs / "model"
    before = files_under(inputs)
    cases = [
        ("run_pretraining", [*pretraining_args(inputs, records), f"--output_dir={a_file}"],
         "--output_dir " + IS_A_FILE.format(path=a_file)),
        ("create_pretraining_data", [*corpus_args(inputs), f"--output_file={a_file / 'p.tfrecord'}"],
         "--output_file " + UNDER_A_FILE.format(path=a_file / "p.tfrecord", file=a_file)),
        ("create_pretraining_data", [*corpus_args(inputs), f"--output_file={model}"],
         f"--output_file {model} is a folder, not a file: name the file to write."),
        ("extract_features", [f"--input_file={inputs / 'lines.txt'}", f"--init_checkpoint={model}",
                              f"--output_file={a_file / 'f.jsonl'}"],
         "--output_file " + UNDER_A_FILE.format(path=a_file / "f.jsonl", file=a_file)),
        ("export_hf_checkpoint", [f"--init_checkpoint={model}", f"--output_dir={a_file}"],
         "--output_dir " + IS_A_FILE.format(path=a_file)),
    ]
    for tool, args, message in cases:
        refused(cli(f"keras_bert.cli.{tool}", *args), f"{tool}.py", message)
    assert files_under(inputs) == before


def test_a_folder_where_a_file_belongs(inputs, records, tmp_path):
    model, folder = inputs / "model", inputs / "conll"
    out = tmp_path / "out"
    config_in_it = f"is a folder, not a file: pass {model / 'bert_config.json'}."
    vocab_in_it = f"is a folder, not a file: pass {model / 'vocab.txt'}."
    itself = "is a folder, not a file: pass the file itself, not its folder."
    pattern = "is a folder, not a file: pass the files in it (a pattern such as {}/*)."
    cases = [
        ("run_classifier", [*finetuning_args(inputs, "run_classifier"), f"--bert_config_file={model}"],
         f"--bert_config_file {model} {config_in_it}"),
        ("run_ner", [*finetuning_args(inputs, "run_ner"), f"--vocab_file={model}"],
         f"--vocab_file {model} {vocab_in_it}"),
        ("run_squad", [*finetuning_args(inputs, "run_squad"), f"--train_file={folder}"],
         f"--train_file {folder} {itself}"),
        ("run_squad", [f"--init_checkpoint={model}", "--do_predict", f"--predict_file={folder}"],
         f"--predict_file {folder} {itself}"),
        ("run_pretraining", [*pretraining_args(inputs, records), f"--input_file={folder}"],
         f"--input_file {folder} {pattern.format(folder)}"),
        ("run_pretraining", [*pretraining_args(inputs, records), f"--bert_config_file={model}"],
         f"--bert_config_file {model} {config_in_it}"),
        ("create_pretraining_data", [*corpus_args(inputs), f"--input_file={folder}"],
         f"--input_file {folder} {pattern.format(folder)}"),
        ("create_pretraining_data", [*corpus_args(inputs), f"--vocab_file={model}"],
         f"--vocab_file {model} {vocab_in_it}"),
        ("extract_features", [f"--input_file={folder}", f"--init_checkpoint={model}"],
         f"--input_file {folder} {itself}"),
        ("export_hf_checkpoint", [f"--init_checkpoint={model}", f"--vocab_file={model}"],
         f"--vocab_file {model} {vocab_in_it}"),
        # and the other way round: a file where a folder belongs
        ("run_classifier", [*finetuning_args(inputs, "run_classifier"),
                            f"--data_dir={inputs / 'a_file'}"],
         f"--data_dir {inputs / 'a_file'} is a file, not a folder: pass the folder that holds "
         "the files."),
    ]
    for tool, args, message in cases:
        if tool in ("run_classifier", "run_ner", "run_squad", "run_pretraining",
                    "export_hf_checkpoint"):
            args = [*args, f"--output_dir={out}"]
        elif tool == "create_pretraining_data":
            args = [*args, f"--output_file={out / 'p.tfrecord'}"]
        else:
            args = [*args, f"--output_file={out / 'f.jsonl'}"]
        refused(cli(f"keras_bert.cli.{tool}", *args), f"{tool}.py", message)
    assert not out.exists()


def test_an_init_checkpoint_that_does_not_exist(inputs, records, tmp_path):
    missing = tmp_path / "no_such_run"
    out = tmp_path / "out"
    for tool, args in (  # the last --init_checkpoint given wins
        ("run_classifier", [*finetuning_args(inputs, "run_classifier"), f"--output_dir={out}"]),
        ("export_hf_checkpoint", [f"--output_dir={out}"]),
        ("fill_mask", ["w5 [MASK] w6"]),
        ("extract_features", [f"--input_file={inputs / 'lines.txt'}", f"--output_file={out / 'f.jsonl'}"]),
        ("run_pretraining", [*pretraining_args(inputs, records), f"--output_dir={out}"]),
    ):
        done = cli(f"keras_bert.cli.{tool}", *args, f"--init_checkpoint={missing}")
        refused(done, f"{tool}.py", f"--init_checkpoint {missing} does not exist.")
    assert not out.exists()


def test_pretraining_records_of_a_larger_vocabulary(inputs, records, tmp_path):
    small = tmp_path / "bert_config.json"
    small.write_text(json.dumps(dict(CONFIG, vocab_size=20)))
    done = cli("keras_bert.cli.run_pretraining", *pretraining_args(inputs, records),
               f"--bert_config_file={small}", f"--output_dir={tmp_path / 'out'}")
    refused(done, "run_pretraining.py", (
        f"--input_file {records} holds token id 39, but the model has vocab_size=20 "
        f"(--bert_config_file {small}): the records were made with a vocabulary of at least 40 "
        "tokens. Pass a --bert_config_file whose vocab_size is the size of the vocab.txt the "
        "records were made with, or re-create the records with the model's vocab.txt "
        "(create_pretraining_data --vocab_file)."))
    assert not (tmp_path / "out").exists()


def test_pretraining_flags_out_of_range(inputs, records, tmp_path):
    out = tmp_path / "out"
    for flag, message in (
        ("--train_batch_size=-4", "--train_batch_size=-4: it must be a whole number >= 1."),
        ("--num_train_steps=0", "--num_train_steps=0: it must be a whole number >= 1."),
        ("--learning_rate=-1", "--learning_rate=-1: it must be >= 0 (BERT pretrains with 1e-4)."),
        ("--max_seq_length=100",
         "--max_seq_length=100 exceeds the model's max_position_embeddings=64."),
    ):
        done = cli("keras_bert.cli.run_pretraining", *pretraining_args(inputs, records), flag,
                   f"--output_dir={out}")
        refused(done, "run_pretraining.py", message)
    assert not out.exists()


def test_create_pretraining_data_flags_out_of_range(inputs, tmp_path):
    out = tmp_path / "out"
    config = inputs / "model" / "bert_config.json"
    small = tmp_path / "small_vocab.json"
    small.write_text(json.dumps(dict(CONFIG, vocab_size=20)))
    lengths = ("use 5 to 8192 tokens, [CLS] and [SEP]s included: the max_position_embeddings of "
               "the model to pretrain (512 for BERT's; --bert_config_file checks it).")
    for flags, message in (
        (["--max_seq_length=100000"], f"--max_seq_length=100000: {lengths}"),
        (["--max_seq_length=0"], f"--max_seq_length=0: {lengths}"),
        (["--max_predictions_per_seq=0"], "--max_predictions_per_seq=0: it must be a whole number "
         ">= 1 (google's: max_seq_length * masked_lm_prob, 20 for 128)."),
        (["--masked_lm_prob=0"], "--masked_lm_prob=0: a fraction in (0, 1] (BERT's is 0.15)."),
        (["--masked_lm_prob=1.5"], "--masked_lm_prob=1.5: a fraction in (0, 1] (BERT's is 0.15)."),
        (["--dupe_factor=0"], "--dupe_factor=0: it must be a whole number >= 1."),
        (["--max_seq_length=128", "--max_predictions_per_seq=20", f"--bert_config_file={config}"],
         f"--max_seq_length=128 exceeds the model's max_position_embeddings=64 "
         f"(--bert_config_file {config})."),
        ([f"--bert_config_file={small}"],
         f"--vocab_file {inputs / 'model' / 'vocab.txt'} has 40 tokens, but the model has "
         f"vocab_size=20 (--bert_config_file {small}): pass the model's own vocab.txt."),
    ):
        done = cli("keras_bert.cli.create_pretraining_data", *corpus_args(inputs), *flags,
                   f"--output_file={out / 'p.tfrecord'}")
        refused(done, "create_pretraining_data.py", message)
    assert not out.exists()


@pytest.mark.parametrize("tool, flag, message", [
    ("run_classifier", "--train_batch_size=-4", "--train_batch_size=-4: it must be a whole number >= 1."),
    ("run_squad", "--learning_rate=-1", "--learning_rate=-1.0: it must be >= 0 (BERT fine-tunes "
     "with 2e-5 to 1e-4; 0 leaves the weights as they are)."),
    ("run_ner", "--max_seq_length=0", "--max_seq_length=0: it must be at least 3 ([CLS], one "
     "token, [SEP])."),
    ("run_classifier", "--max_seq_length=100",
     "--max_seq_length=100 exceeds the model's max_position_embeddings=64."),
])
def test_fine_tuning_flags_out_of_range(inputs, tmp_path, tool, flag, message):
    done = cli(f"keras_bert.cli.{tool}", *finetuning_args(inputs, tool), flag,
               f"--output_dir={tmp_path / 'out'}")
    refused(done, f"{tool}.py", message)
    assert not (tmp_path / "out").exists()


# Each tool's --help names its main flags, its shared ones (finetuning, precision, runtime) too.
MAIN_FLAGS = {
    "analyse_layers": ["--output_json", "--input_file", "--init_checkpoint"],
    "build_pretraining_corpus": ["--output_file"],
    "create_pretraining_data": ["--input_file", "--output_file", "--vocab_file", "--max_seq_length",
                                "--bert_config_file"],
    "export_hf_checkpoint": ["--init_checkpoint", "--output_dir", "--dtype"],
    "extract_features": ["--input_file", "--output_file", "--layers", "--init_checkpoint",
                         "--max_seq_length", "--dtype_policy"],
    "fill_mask": ["--init_checkpoint"],
    "learn_vocabulary": ["--input_file", "--vocab_file", "--vocab_size"],
    "masking_lab": ["--output_dir"],
    "plot_pretraining": ["--output_dir"],
    "prepare_pretraining_text": ["--input_file", "--output_file"],
    "run_classifier": ["--task_name", "--data_dir", "--train_batch_size", "--learning_rate",
                       "--output_dir", "--init_checkpoint", "--dtype_policy", "--random_seed"],
    "run_ner": ["--data_dir", "--train_batch_size", "--learning_rate", "--output_dir",
                "--max_seq_length"],
    "run_pretraining": ["--input_file", "--bert_config_file", "--output_dir", "--train_batch_size",
                        "--learning_rate", "--dtype_policy", "--distribution_strategy"],
    "run_squad": ["--train_file", "--predict_file", "--doc_stride", "--train_batch_size",
                  "--learning_rate", "--output_dir", "--distribution_strategy"],
    "sentence_similarity": ["--model_dir", "--sentences_file"],
}


def test_every_tool_answers_help_with_its_own_flags_and_exit_status_0():
    tools = sorted(p.stem for p in (ROOT / "keras_bert" / "cli").glob("*.py") if p.stem != "__init__")
    assert tools == sorted(MAIN_FLAGS)  # a new tool gets a line here
    for tool in tools:
        done = cli(f"keras_bert.cli.{tool}", "--help")
        assert done.returncode == 0, (tool, done.stderr[-2000:])
        listed = {line.split(":")[0].strip().replace("--[no]", "--")
                  for line in done.stdout.splitlines() if line.startswith("  --")}
        missing = [flag for flag in MAIN_FLAGS[tool] if flag not in listed]
        assert not missing, (tool, missing, done.stdout[-3000:])


def test_piped_output_has_no_escape_codes(inputs, tmp_path):
    done = cli("keras_bert.cli.create_pretraining_data", *corpus_args(inputs), "--dupe_factor=2",
               f"--output_file={tmp_path / 'p.tfrecord'}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "\x1b[" not in done.stdout + done.stderr and "\b" not in done.stdout
    # The progress is plain lines: the last one of each bar says it reached the end.
    assert any(" instance (100%), " in line for line in done.stdout.splitlines()), done.stdout


@pytest.mark.large
def test_a_piped_fine_tuning_run_shows_plain_progress_and_percent_scores(inputs, tmp_path):
    from keras_bert.checkpoints.tf1_checkpoint import save_tf1_checkpoint
    from keras_bert.models.bert_config import BertConfig
    from keras_bert.models.bert_encoder import BertEncoder

    model = tmp_path / "model"
    model.mkdir()
    for name in ("bert_config.json", "vocab.txt"):
        (model / name).write_text((inputs / "model" / name).read_text())
    save_tf1_checkpoint(BertEncoder.from_bert_config(BertConfig.from_dict(CONFIG)),
                        str(model / "bert_model.ckpt"))
    squad = inputs / "squad.json"
    done = cli("keras_bert.cli.run_squad", f"--init_checkpoint={model}", f"--train_file={squad}",
               f"--predict_file={squad}", "--do_train", "--do_predict", "--num_train_steps=1",
               "--train_batch_size=4", "--max_seq_length=32", "--doc_stride=16",
               "--max_query_length=8", f"--output_dir={tmp_path / 'squad'}")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "\x1b[" not in done.stdout + done.stderr and "\b" not in done.stdout
    lines = done.stdout.splitlines()
    # The prediction phase says what it predicts and ends with a plain progress line.
    assert any(line.startswith(f"Predicting {squad}: ") for line in lines), done.stdout
    assert any(" batch (100%), " in line for line in lines), done.stdout
    # Scores in percent, 2 decimals, as the official script; the JSON keeps its percent.
    results = json.loads((tmp_path / "squad" / "eval_results.json").read_text())
    assert (f"Wrote {tmp_path / 'squad' / 'eval_results.json'}: exact_match "
            f"{results['exact_match']:.2f}%, f1 {results['f1']:.2f}%") in lines, done.stdout
    done = cli("keras_bert.cli.run_classifier", *finetuning_args(inputs, "run_classifier"),
               f"--init_checkpoint={model}", "--do_eval", "--num_train_steps=1",
               "--train_batch_size=4", f"--output_dir={tmp_path / 'glue'}")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "\x1b[" not in done.stdout + done.stderr
    # GLUE's fractions stay fractions in the JSON and print in percent.
    results = json.loads((tmp_path / "glue" / "eval_results.json").read_text())
    assert 0 <= results["accuracy"] <= 1
    assert f"accuracy {100 * results['accuracy']:.2f}%, eval_loss" in done.stdout, done.stdout
    assert f"step 1: accuracy {100 * results['accuracy']:.2f}% (best so far, saved)" in done.stdout
