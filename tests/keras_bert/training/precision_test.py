"""The precision setting: what `auto` picks per machine, what it refuses, and what it tells."""

import shutil
import subprocess

import keras
import pytest

from keras_bert.training import precision
from keras_bert.training.precision import PrecisionError
from keras_bert.training.precision import default_jit_compile
from keras_bert.training.precision import resolve_dtype_policy


def machine(bf16=(), fp16=(), accelerators=()):
    return {"cpu": "Test CPU 9000", "bf16_units": list(bf16), "fp16_units": list(fp16),
            "accelerators": list(accelerators)}


ZEN3 = machine()  # AVX2 only
ZEN4 = machine(bf16=["avx512_bf16"])
XEON_AMX = machine(bf16=["amx_bf16", "avx512_bf16"], fp16=["amx_fp16", "avx512_fp16"])
GPU_HOST = machine(accelerators=["GPU"])


@pytest.mark.parametrize("box", [ZEN4, XEON_AMX, GPU_HOST])
def test_auto_is_bfloat16_where_there_are_bf16_units(box):
    lines = []
    assert resolve_dtype_policy("auto", box, log=lines.append) == "mixed_bfloat16"
    assert len(lines) == 1 and "mixed_bfloat16" in lines[0]


def test_auto_falls_back_to_float32_and_says_why_in_one_line():
    lines = []
    assert resolve_dtype_policy("auto", ZEN3, log=lines.append) == "float32"
    assert len(lines) == 1 and "\n" not in lines[0]
    assert "float32" in lines[0] and "Test CPU 9000" in lines[0] and "AVX512-BF16" in lines[0]


def test_a_precision_the_machine_cannot_run_is_a_one_line_error():
    with pytest.raises(PrecisionError) as error:
        resolve_dtype_policy("mixed_bfloat16", ZEN3)
    message = str(error.value)
    assert "\n" not in message and "AMX-BF16" in message and "float32" in message
    with pytest.raises(PrecisionError, match="AVX512-FP16"):
        resolve_dtype_policy("mixed_float16", ZEN4)
    with pytest.raises(PrecisionError, match="Unknown dtype policy 'bf16'"):
        resolve_dtype_policy("bf16", ZEN4)


def test_explicit_policies_pass_where_the_units_exist():
    assert resolve_dtype_policy("float32", ZEN3) == "float32"
    assert resolve_dtype_policy("mixed_bfloat16", ZEN4) == "mixed_bfloat16"
    assert resolve_dtype_policy("mixed_float16", XEON_AMX) == "mixed_float16"
    assert resolve_dtype_policy("mixed_float16", GPU_HOST) == "mixed_float16"


def test_xla_only_where_it_was_measured_faster():
    # bf16 on a CPU: XLA's CPU backend does not use the bf16 units.
    assert default_jit_compile("mixed_bfloat16", ZEN4) is False
    assert default_jit_compile("float32", ZEN4) is True
    assert default_jit_compile("mixed_bfloat16", GPU_HOST) is True


def test_cpu_flags_agree_with_lscpu(monkeypatch):
    monkeypatch.delenv(precision.CPU_FLAGS_ENV, raising=False)
    assert shutil.which("lscpu"), "lscpu (util-linux) is the oracle here; install util-linux"
    out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    flags_line = next(l for l in out.splitlines() if l.startswith("Flags:"))
    assert precision.cpu_flags() == frozenset(flags_line.split(":", 1)[1].split())
    model_line = next(l for l in out.splitlines() if l.startswith("Model name:"))
    assert precision.cpu_model_name() == model_line.split(":", 1)[1].strip()


def test_the_environment_override_simulates_another_cpu(monkeypatch):
    monkeypatch.setenv(precision.CPU_FLAGS_ENV, "none")
    assert precision.describe_machine()["bf16_units"] == []
    assert resolve_dtype_policy("auto", log=None) == "float32"
    monkeypatch.setenv(precision.CPU_FLAGS_ENV, "sse2 avx512_bf16")
    assert precision.describe_machine()["bf16_units"] == ["avx512_bf16"]
    assert resolve_dtype_policy("auto", log=None) == "mixed_bfloat16"


def test_set_dtype_policy_sets_the_keras_global_policy(monkeypatch):
    monkeypatch.setenv(precision.CPU_FLAGS_ENV, "avx512_bf16")
    try:
        assert precision.set_dtype_policy("auto", log=None) == "mixed_bfloat16"
        assert keras.config.dtype_policy().name == "mixed_bfloat16"
        monkeypatch.setenv(precision.CPU_FLAGS_ENV, "none")
        with pytest.raises(PrecisionError):
            precision.set_dtype_policy("mixed_bfloat16")
        assert keras.config.dtype_policy().name == "mixed_bfloat16"  # unchanged on error
    finally:
        keras.config.set_dtype_policy("float32")
