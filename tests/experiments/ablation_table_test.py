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
    assert lines[2].endswith("| 50 | 6,400 | 5.500 | 0.200 | +0.000 | - |")
    assert lines[3].startswith("| nsp | sentence-pair rows with the NSP loss |")
    # No second seed of the recipe yet: no yardstick, so no verdict.
    assert lines[3].endswith("| 40 | 5,120 | 6.250 | 0.110 | +0.750 | - |")


def test_a_choice_matters_only_beyond_twice_the_recipes_seed_spread(tmp_path):
    write_run(tmp_path / "budget", 50, 5.50, 0.2)
    write_run(tmp_path / "budget_seed1", 50, 5.54, 0.2)  # spread 0.04: the bar is 0.08
    write_run(tmp_path / "mask30", 50, 5.45, 0.2)  # -0.05: within
    write_run(tmp_path / "dropout", 50, 5.60, 0.2)  # +0.10: beyond
    lines = ablation_table.table(str(tmp_path)).splitlines()
    assert lines[3].startswith("| budget_seed1 |") and lines[3].endswith("| +0.040 | - |")
    assert lines[4].startswith("| mask30 |") and lines[4].endswith("| -0.050 | no |")
    assert lines[5].startswith("| dropout |") and lines[5].endswith("| +0.100 | yes |")
    assert lines[-1].startswith("Seed spread (budget vs budget_seed1): 0.040 held-out loss")


def test_nothing_scored_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="no variant has both train_log.jsonl and eval_results"):
        ablation_table.table(str(tmp_path))
