"""`experiments.ablation_table`: the rows of the scored variants, in order, against the recipe's loss."""

import json

import pytest

from experiments import ablation_table


def write_run(folder, steps, loss, accuracy):
    folder.mkdir(parents=True)
    (folder / "train_log.jsonl").write_text(
        "".join(json.dumps({"step": s, "loss": 9.0}) + "\n" for s in range(10, steps + 1, 10)))
    (folder / "eval_results.json").write_text(
        json.dumps({"mlm_loss": loss, "mlm_accuracy": accuracy, "global_step": steps}))


def test_rows_follow_the_variant_order_and_compare_with_the_budget_recipe(tmp_path):
    write_run(tmp_path / "nsp", 40, 6.25, 0.11)
    write_run(tmp_path / "budget", 50, 5.5, 0.2)
    (tmp_path / "mask30").mkdir()  # started, not scored yet: no row
    lines = ablation_table.table(str(tmp_path), batch_size=128).splitlines()
    assert len(lines) == 4
    assert lines[2].startswith("| budget | **the budget recipe**")
    assert lines[2].endswith("| 50 | 6,400 | 5.500 | 0.200 | +0.000 |")
    assert lines[3].startswith("| nsp | sentence-pair rows with the NSP loss |")
    assert lines[3].endswith("| 40 | 5,120 | 6.250 | 0.110 | +0.750 |")


def test_nothing_scored_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="no variant has both train_log.jsonl and eval_results"):
        ablation_table.table(str(tmp_path))
