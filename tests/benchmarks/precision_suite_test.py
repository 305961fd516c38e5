"""The precision suite on the tiny config: every precision x compilation candidate, labelled."""

import keras
import pytest

from benchmarks import run as bench
from benchmarks.suites import precision

# What these tests check is which candidates run, how they are labelled and where, not their
# speed: no settle pause, and small matmuls for the hardware-rate rows (a 2048 bf16 matmul
# takes ~50 s of CPU in PyTorch where the CPU has no bf16 units, as on AVX2 machines).
QUICK_TIMING = {"settle_s": 0.0, "matmul_size": 256}


@pytest.mark.large
def test_precision_suite_times_every_path_and_marks_the_default(monkeypatch):
    monkeypatch.setenv("KERAS_BERT_CPU_FLAGS", "avx512_bf16")  # a bf16 machine, whatever runs CI
    options = bench.Options(rounds=1, warmup=0, seq_lengths=(32,), isolate=False,
                            **QUICK_TIMING)
    results = bench.run_suites(["precision"], "tiny", options, log=lambda *_: None)
    assert [r["case"] for r in results] == [
        "train step, span head, seq 32, batch 4", "inference, span head, seq 32, batch 4"]
    names = [t["name"] for t in results[0]["timings"]]
    assert "keras_bert float32 XLA (default before)" in names
    assert "keras_bert bf16 no XLA (default)" in names
    for library in ("keras_bert", "keras-hub"):
        assert sum(n.startswith(library + " ") for n in names) == 4  # 2 precisions x XLA or not
    assert {"HF PyTorch float32", "HF PyTorch bf16 autocast"} <= set(names)
    notes = results[0]["notes"]
    assert float(notes["float32 parity (keras_bert vs keras-hub / HF), max |diff| of logits"]) < 1e-4
    # bf16 logits are near the float32 ones, not equal: the suite compares like with like.
    assert 0 < float(notes["bf16 vs float32 start/end logits, max |diff|"]) < 0.05
    assert keras.config.dtype_policy().name == "float32"  # the suite restores the global policy
    assert notes["processes"] == "every candidate in one"


@pytest.mark.large
def test_isolated_candidates_each_train_in_a_process_of_their_own(monkeypatch):
    # The workers inherit the environment: they resolve the same (simulated bf16) default.
    monkeypatch.setenv("KERAS_BERT_CPU_FLAGS", "avx512_bf16")
    options = bench.Options(rounds=2, warmup=0, seq_lengths=(32,), keras_bert_paths=(
        "float32_xla", "bf16"), keras_hub_paths=("bf16",), torch_paths=("bf16",),
        **QUICK_TIMING)
    assert options.isolate  # the CLI's default
    logged = []
    results = bench.run_suites(["precision"], "tiny", options, log=logged.append)
    train, infer = results
    names = [t["name"] for t in train["timings"]]
    models = ["keras_bert float32 XLA (default before)", "keras_bert bf16 no XLA (default)",
              "keras-hub bf16 no XLA", "HF PyTorch bf16 autocast"]
    assert names[:4] == models  # then the matmul rates, timed in the coordinator
    assert [t["name"] for t in infer["timings"]] == models
    for timing in train["timings"] + infer["timings"]:
        assert len(timing["seconds"]) == 2 and timing["rate"] > 0
    assert sum(line.startswith("  starting ") for line in logged) == 4
    assert train["notes"]["processes"].startswith("each model candidate in a process of its own")


def test_span_batch_labels_lie_in_the_passage():
    inputs, labels = precision.span_batch(vocab_size=100, batch_size=64, seq_length=40)
    assert inputs["token_ids"].shape == (64, 40) and inputs["token_ids"].max() < 100
    assert (labels["start_logits"] >= 10).all() and (labels["end_logits"] < 40).all()
    assert (labels["end_logits"] >= labels["start_logits"]).all()
