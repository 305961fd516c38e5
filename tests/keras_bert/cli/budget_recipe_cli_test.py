"""`--recipe=budget` end to end: packed records, a token budget, the schedule, clear errors."""

import json

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.data.pretraining.records import read_records
from tests.keras_bert.cli.pretraining_cli_test import TEXT
from tests.keras_bert.cli.pretraining_cli_test import VOCAB
from tests.keras_bert.cli.pretraining_cli_test import cli
from tests.keras_bert.training import train_worker

SEQ, PREDICTIONS, BATCH = 8, 3, 2


@pytest.fixture(scope="module")
def packed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("budget")
    (tmp / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    (tmp / "corpus.txt").write_text(TEXT)
    config = dict(train_worker.CONFIG, vocab_size=len(VOCAB), hidden_dropout_prob=0.1,
                  attention_probs_dropout_prob=0.1)
    (tmp / "bert_config.json").write_text(json.dumps(config))
    done = cli("create_pretraining_data", f"--input_file={tmp / 'corpus.txt'}",
               f"--output_file={tmp / 'packed.tfrecord'}", f"--vocab_file={tmp / 'vocab.txt'}",
               f"--max_seq_length={SEQ}", f"--max_predictions_per_seq={PREDICTIONS}",
               "--dupe_factor=3", "--pack_sequences")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "packed rows, no next-sentence labels" in done.stdout, done.stdout
    return tmp


def pretrain(tmp, output_dir, *args):
    return cli("run_pretraining", f"--input_file={tmp / 'packed.tfrecord'}",
               f"--bert_config_file={tmp / 'bert_config.json'}", f"--vocab_file={tmp / 'vocab.txt'}",
               f"--output_dir={output_dir}", f"--max_seq_length={SEQ}",
               f"--max_predictions_per_seq={PREDICTIONS}", f"--train_batch_size={BATCH}",
               "--iterations_per_loop=1", *args)


@pytest.mark.large
def test_packed_records_are_full_rows_with_document_boundaries(packed):
    records = read_records(str(packed / "packed.tfrecord"), SEQ, PREDICTIONS)
    assert "next_sentence_labels" not in records
    assert (records["input_mask"] == 1).all()  # no padding anywhere
    assert (records["input_ids"][:, 0] == VOCAB.index("[CLS]")).all()
    assert (records["segment_ids"] == 0).all()
    # The corpus has 3 documents; with the targets put back, [SEP]s in the rows mark their ends.
    ids = records["input_ids"].copy()
    for row, positions, labels, weights in zip(ids, records["masked_lm_positions"],
                                               records["masked_lm_ids"],
                                               records["masked_lm_weights"]):
        row[positions[weights > 0]] = labels[weights > 0]
    assert (ids == VOCAB.index("[SEP]")).sum() >= 3


@pytest.mark.large
def test_token_budget_run_ends_where_the_budget_does_and_the_rate_reaches_zero(packed, tmp_path):
    per_step = BATCH * SEQ  # packed rows: every position is a token
    amount = 3.5 * per_step  # 4 steps: 48 tokens spent before the 4th, 64 after it
    done = pretrain(packed, tmp_path / "run", "--recipe=budget", f"--budget_tokens={amount}",
                    "--learning_rate=1e-3", "--warmup_fraction=0.25")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "budget 5.6e-05 M tokens" in done.stdout, done.stdout[-2000:]
    log = [json.loads(line) for line in (tmp_path / "run" / "train_log.jsonl").read_text().splitlines()]
    assert [e["step"] for e in log] == [1, 2, 3, 4]
    assert "nsp_accuracy" not in log[0]  # masked LM only

    def rate(progress):  # BudgetSchedule's definition, peak 1e-3, warm-up a quarter
        return 1e-3 * (progress / 0.25 if progress < 0.25 else max(0.0, 1 - progress) / 0.75)

    assert [e["lr"] for e in log] == pytest.approx(
        [rate(per_step * k / amount) for k in range(4)], rel=1e-5)
    assert log[-1]["budget_spent"] == pytest.approx(4 * per_step / amount)
    assert json.loads((tmp_path / "run" / "final_metrics.json").read_text())["step"] == 4
    record = json.loads((tmp_path / "run" / "pretraining_objective.json").read_text())
    assert record["recipe"] == "budget" and record["nsp_loss_weight"] == 0.0
    assert record["dynamic_masking"] is True and record["pretraining_dropout"] == 0.0
    assert record["budget"] == {"amount": amount, "unit": "tokens"}
    # The model's own dropout stays in the saved config for fine-tuning.
    saved = json.loads((tmp_path / "run" / "bert_config.json").read_text())
    assert saved["hidden_dropout_prob"] == 0.1
    plotted = cli("plot_pretraining", f"--output_dir={tmp_path / 'run'}")
    assert plotted.returncode == 0, plotted.stderr[-2000:]
    assert "NSP" not in plotted.stdout and (tmp_path / "run" / "curves.png").exists()
    # Re-running has nothing left to spend: the same step, no new checkpoint.
    again = pretrain(packed, tmp_path / "run", "--recipe=budget", f"--budget_tokens={amount}",
                     "--learning_rate=1e-3", "--warmup_fraction=0.25")
    assert again.returncode == 0 and "nothing to do" in again.stdout, again.stdout[-2000:]
    assert tf.train.latest_checkpoint(str(tmp_path / "run")).endswith("ckpt-4")
    # Scored alone without the recipe's flags (as docs/runs/pretraining_ablation.sh does): the
    # weights of the run trained without dropout load into the model (the config says 0.1), and
    # the run's own records stay as they were.
    record_before = (tmp_path / "run" / "pretraining_objective.json").read_text()
    scored = pretrain(packed, tmp_path / "run", "--do_train=false", "--do_eval",
                      "--nsp_loss_weight=0", "--eval_batch_size=2", "--max_eval_steps=3")
    assert scored.returncode == 0, scored.stderr[-3000:]
    results = json.loads((tmp_path / "run" / "eval_results.json").read_text())
    assert results["global_step"] == 4 and results["examples"] == 6
    assert 0.0 < results["mlm_loss"] < 20.0
    assert (tmp_path / "run" / "pretraining_objective.json").read_text() == record_before


@pytest.mark.large
@pytest.mark.parametrize("args, message", [
    (["--recipe=budget"], "--recipe=budget needs one budget: --budget_hours=H"),
    (["--recipe=budget", "--budget_hours=1", "--budget_tokens=5"], "needs one budget"),
    (["--budget_hours=1"], "--budget_hours needs --recipe=budget."),
    (["--recipe=budget", "--budget_hours=1", "--pretraining_dropout=1"],
     "--pretraining_dropout=1: a rate in [0, 1)"),
    (["--num_train_steps=2"], "holds packed rows without next-sentence labels: pass "
                              "--nsp_loss_weight=0 (or --recipe=budget)"),
])
def test_budget_flags_are_checked_in_one_line(packed, tmp_path, args, message):
    done = pretrain(packed, tmp_path / "bad", *args)
    assert done.returncode != 0
    assert message in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert not (tmp_path / "bad" / "checkpoint").exists()
    np.testing.assert_equal(done.stdout.count("Training"), 0)
