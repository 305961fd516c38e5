"""experiments/latency_page.py: its inputs are checked, its table is the measurements'."""

import pytest
from absl import app

from apps.latency import measure
from apps.qa_pipeline import MODEL
from experiments.latency_page import pairs, table


def test_pairs_name_existing_files(tmp_path):
    model = tmp_path / "m.tflite"
    model.write_bytes(b"x")
    assert pairs([f"int8={model}"], "variants") == {"int8": str(model)}
    with pytest.raises(app.UsageError, match="is not name=path"):
        pairs([str(model)], "variants")
    with pytest.raises(app.UsageError, match="does not exist"):
        pairs([f"int8={tmp_path / 'missing.tflite'}"], "variants")


def test_table_rows_and_ratios_come_from_the_measurements():
    row = {
        "name": "dynamic_int8", "size_bytes": 23_600_000,
        "score": {"exact_match": 70.34, "f1": 80.36},
        "python": {"1": {"p50_ms": 30.0}, "2": {"p50_ms": 16.0}},
        "browser": {"threads": {"1": {"p50": 90.0}, "2": {"p50": 40.0}, "4": {"p50": 35.0}}},
    }
    lines = table([row], [1, 2], [1, 2, 4]).splitlines()
    assert lines[0].count("|") == 12  # 11 columns: 4 + 2 Python + 3 browser + 2 ratios
    cells = [c.strip() for c in lines[2].strip("|").split("|")]
    assert cells == ["dynamic_int8", "23.6", "70.34", "80.36", "30.0", "16.0", "90.0", "40.0",
                     "35.0", "3.00x", "2.50x"]


@pytest.mark.large  # reads apps/models and apps/web/data, which Bazel's runfiles do not hold
def test_python_latency_of_the_shipped_model():
    result = measure(MODEL, threads=(1,), num_runs=2, warmup=1)
    assert list(result) == ["1"]
    assert result["1"]["runs"] == 2
    assert 0 < result["1"]["p50_ms"] <= result["1"]["p90_ms"]
