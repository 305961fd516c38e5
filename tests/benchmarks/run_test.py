"""`python -m benchmarks.run` end to end on the tiny config: every suite, JSON and plots."""

import json
import os
import subprocess
import sys

import pytest

from tests.data_paths import shared_data_dir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# These tests check that the harness runs each suite and reports it (JSON, tables, parity,
# ratios, plots), not speed: one round, no warm-up beyond the suites' own, no settle pause.
QUICK = ["--config=tiny", "--rounds=1", "--warmup=0", "--settle_ms=0"]


@pytest.mark.large
def test_every_suite_runs_on_the_tiny_config(tmp_path):
    # pretrain and finetune on SST-2 run (in float32, then bf16) in the next test, which checks
    # their parity, padding and timings; here the other suites and finetune on SQuAD.
    out = tmp_path / "bench.json"
    command = [
        sys.executable, "-m", "benchmarks.run", *QUICK,
        "--suite=finetune,inference,tflite,startup,memory", "--tasks=squad", "--seq_lengths=64",
        "--memory_steps=20", f"--data_dir={shared_data_dir()}", f"--json={out}",
        f"--plot={tmp_path / 'bench.png'}",
    ]
    completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "| keras_bert (XLA) |" in completed.stdout  # the printed table
    data = json.loads(out.read_text())
    assert data["machine"]["environment"]["TF_CPU_ALLOCATOR_USE_BFC"] == "true"  # re-executed
    suites = [r["suite"] for r in data["results"]]
    assert suites == ["finetune", "inference", "inference", "tflite", "startup", "startup",
                      "memory"]
    _check_timings_and_rows(data["results"])
    finetune = data["results"][0]
    assert finetune["case"].startswith("squad, ")
    assert float(finetune["notes"]["trimmed vs padded outputs, max |diff|"]) < 1e-4
    assert (tmp_path / "bench.png").exists() and (tmp_path / "bench_rss.png").exists()


def _check_timings_and_rows(results):
    for result in results:
        for timing in result.get("timings", []):
            assert timing["rate"] > 0 and len(timing["seconds"]) >= 1
        if result.get("metric") == "command_startup":  # wall times of commands, no RSS
            names = [row["name"] for row in result["rows"]]
            assert "run_classifier --help" in names and "import keras_hub" in names
            assert all(row["wall_s"] > 0 for row in result["rows"])
            continue
        for row in result.get("rows", []):
            assert row["peak_rss_mb"] > 50


@pytest.mark.large
def test_suites_run_in_both_precisions_and_report_the_ratio(tmp_path):
    out = tmp_path / "bench.json"
    command = [
        sys.executable, "-m", "benchmarks.run", *QUICK, "--notune_allocator",
        "--suite=pretrain,finetune", "--tasks=sst2", "--seq_lengths=32",
        "--dtype_policies=float32,mixed_bfloat16", f"--data_dir={shared_data_dir()}",
        f"--json={out}",
    ]
    completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                               env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2",
                                        KERAS_BERT_CPU_FLAGS="avx512_bf16"))
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "| keras_bert (XLA) |" in completed.stdout  # the printed table
    assert "**pretrain · tiny · seq 32, batch 16: mixed_bfloat16 vs float32**" in completed.stdout
    assert "| HF PyTorch |" in completed.stdout.split("mixed_bfloat16 vs float32")[1]
    data = json.loads(out.read_text())
    assert [(r["suite"], r["dtype_policy"]) for r in data["results"]] == [
        ("pretrain", "float32"), ("finetune", "float32"),
        ("pretrain", "mixed_bfloat16"), ("finetune", "mixed_bfloat16")]
    assert data["machine"]["bf16_units"] == ["avx512_bf16"]
    assert data["machine"]["default_dtype_policy"] == "mixed_bfloat16"
    _check_timings_and_rows(data["results"])
    pretrain, finetune = data["results"][:2]  # float32: the same models, the same weights
    assert max(pretrain["parity_max_abs_diff"].values()) < 2e-3
    assert finetune["case"].startswith("sst2, ")
    assert float(finetune["notes"]["trimmed vs padded outputs, max |diff|"]) < 1e-4
    bf16_parity = data["results"][2]["parity_max_abs_diff"]
    assert 0 < max(bf16_parity.values()) < 0.25  # bf16 rounding, not another model


@pytest.mark.parametrize(
    "args, message",
    [
        (["--config=huge"], "Unknown benchmark config 'huge'; choose one of"),
        (["--suite=speed"], "Unknown suite(s) ['speed']; choose from"),
        # A CPU without bf16 units (simulated): bf16 is refused, not emulated.
        (["--dtype_policies=float32,mixed_bfloat16"],
         "dtype policy mixed_bfloat16 cannot run here: this CPU"),
        (["--dtype_policies=mixed_float16"], "mixed_float16 cannot run here"),
        (["--suite=finetune", "--config=tiny", "--data_dir=/nonexistent"],
         "/nonexistent/glue/SST-2/train.tsv.gz not found"),
        (["--keras_bert_paths=bf16"], "--keras_bert_paths must include float32_xla"),
        (["--torch_paths=bf16,fp8"], "--torch_paths: ['fp8'] not among"),
    ],
)
def test_bad_arguments_are_named(args, message, monkeypatch):
    # In this process (starting the CLI costs ~8 s a case): `main` exits with the message, which
    # Python prints to stderr with exit status 1; the next test checks that through the CLI.
    from benchmarks import run as bench

    monkeypatch.setenv("KERAS_BERT_CPU_FLAGS", "avx2")
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "2")
    argv = ["benchmarks.run", "--notune_allocator", *args]
    bench.FLAGS.unparse_flags()
    try:
        bench.FLAGS(argv)
        with pytest.raises(SystemExit) as exited:
            bench.main(argv)
    finally:
        bench.FLAGS.unparse_flags()
    assert isinstance(exited.value.code, str)  # sys.exit(message): status 1, message on stderr
    assert message in exited.value.code


def test_a_bad_argument_exits_with_status_1_and_names_it_on_stderr():
    completed = subprocess.run(
        [sys.executable, "-m", "benchmarks.run", "--notune_allocator", "--config=huge"],
        cwd=ROOT, capture_output=True, text=True,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", KERAS_BERT_CPU_FLAGS="avx2"),
    )
    assert completed.returncode == 1
    assert "Unknown benchmark config 'huge'; choose one of" in completed.stderr
