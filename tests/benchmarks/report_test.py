"""Tables from suite results: ratios to the reference, latency speed-ups, process tables."""

from benchmarks.harness import Timing
from benchmarks.report import report, result_table
from benchmarks.suites.memory import slope_mb_per_1000_steps


def _result(**extra):
    timings = [Timing("ours", [0.5, 0.5], 10, flops_per_call=50e9),
               Timing("peer", [1.0, 1.0], 10, flops_per_call=50e9)]
    return dict({"suite": "pretrain", "config": "mini", "case": "seq 128", "reference": "peer",
                 "matmul_gflops": 200.0, "timings": [t.to_json() for t in timings]}, **extra)


def test_rate_table_has_ratio_to_reference_and_share_of_matmul_rate():
    table = result_table(_result())
    ours = next(line for line in table.splitlines() if line.startswith("| ours"))
    assert "| 20.0 seq/s |" in ours and "| 2.00x |" in ours
    assert "| 100 |" in ours and "| 50 % |" in ours  # 50 GFLOP in 0.5 s, of 200


def test_latency_table_reports_milliseconds_and_speed_up():
    table = result_table(_result(metric="latency"))
    ours = next(line for line in table.splitlines() if line.startswith("| ours"))
    assert "| 500 ms |" in ours and "| 2.00x |" in ours


def test_process_tables_and_memory_slope():
    rows = [{"name": "ours", "rss_after_first_step_mb": 100.0, "rss_end_mb": 101.0,
             "peak_rss_mb": 102.0, "slope_mb_per_1000_steps": 0.5, "step_s": 0.2}]
    text = report([{"suite": "memory", "config": "mini", "case": "c", "metric": "memory",
                    "rows": rows}])
    assert "| ours | 100 | 101 | 102 | 0.500 | 0.200 |" in text
    flat_then_growing = [(0, 100.0), (250, 120.0), (500, 130.0), (750, 130.5), (1000, 131.0)]
    assert abs(slope_mb_per_1000_steps(flat_then_growing) - 2.0) < 1e-9  # second half only


def test_runs_in_both_precisions_get_a_bf16_over_float32_table():
    f32 = _result(case="seq 128 · float32", dtype_policy="float32")
    bf16 = _result(case="seq 128 · mixed_bfloat16", dtype_policy="mixed_bfloat16")
    bf16["timings"][0]["rate"] = 30.0  # ours: 20 -> 30 seq/s
    text = report([f32, bf16])
    assert "**pretrain · mini · seq 128: mixed_bfloat16 vs float32**" in text
    assert "| ours | 20.0 seq/s | 30.0 seq/s | 1.50x |" in text
    assert "| peer | 10.0 seq/s | 10.0 seq/s | 1.00x |" in text
    # One precision only: no ratio table.
    assert "vs float32" not in report([f32])
