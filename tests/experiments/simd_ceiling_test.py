"""experiments/simd_ceiling.py: the closed-form checksums against a step-by-step simulation of
the kernels, and the kernels themselves (native and in Chromium) against the closed form."""

import os
import shutil
import subprocess

import numpy as np
import pytest

from experiments import simd_ceiling
from experiments.simd_ceiling import ACCUMULATORS, KERNEL_SHAPES, expected_checksum


def _simulate(kernel, iterations):
    """The kernel's registers instruction by instruction, in numpy's int32 / float64."""
    _, _, copies, integer = KERNEL_SHAPES[kernel]
    if integer:
        a = np.tile(simd_ceiling.A8, copies).reshape(-1, 4)
        b = np.tile(simd_ceiling.B8, copies).reshape(-1, 4)
        acc = np.array([[k] * len(a) for k in range(ACCUMULATORS)], np.int32)
        with np.errstate(over="ignore"):
            for _ in range(iterations):
                acc = acc + (a * b).sum(1).astype(np.int32)
            return int(acc.sum(dtype=np.int32))
    a, b = np.tile(simd_ceiling.AF, copies), np.tile(simd_ceiling.BF, copies)
    acc = np.array([[k] * len(a) for k in range(ACCUMULATORS)], np.float32)
    for _ in range(iterations):
        acc = acc + (a * b).astype(np.float32)
    return float(acc.astype(np.float64).sum())


@pytest.mark.parametrize("kernel", sorted(KERNEL_SHAPES))
@pytest.mark.parametrize("iterations", [1, 7, 60])
def test_closed_form_is_the_step_by_step_sum(kernel, iterations):
    assert expected_checksum(kernel, iterations) == _simulate(kernel, iterations)


@pytest.mark.parametrize("kernel", ["vnni512", "vnni128", "i8_relaxed_dot"])
def test_int32_lanes_wrap_as_the_hardware_does(kernel):
    """100M iterations overflow every int8 kernel's lanes; the closed form wraps them (and their
    sum) as int32 registers do (numpy int32 arithmetic, by repeated doubling instead of 100M steps)."""
    iterations = 100_000_000
    _, _, copies, _ = KERNEL_SHAPES[kernel]
    per_lane = np.tile((simd_ceiling.A8 * simd_ceiling.B8).reshape(4, 4).sum(1), copies)
    assert np.abs(per_lane).max() * iterations > 2**31
    lanes = np.array([[k] * len(per_lane) for k in range(ACCUMULATORS)], np.int32)
    step, n = per_lane.astype(np.int32), iterations
    with np.errstate(over="ignore"):
        while n:  # lanes += iterations * per_lane, in int32, by binary expansion
            if n & 1:
                lanes = lanes + step
            step, n = step + step, n >> 1
        total = lanes.sum(dtype=np.int32)
    assert expected_checksum(kernel, iterations) == int(total)


def _cpu_flags():
    with open("/proc/cpuinfo") as f:
        return set(next(line for line in f if line.startswith("flags")).split())


@pytest.mark.large
def test_native_kernels_compute_the_closed_form(tmp_path):
    if not shutil.which("gcc"):
        pytest.fail("gcc is missing: the native kernels are built with it")
    native = tmp_path / "kernels"
    subprocess.run(["gcc", "-O2", "-o", str(native),
                    os.path.join(simd_ceiling.KERNELS, "kernels.c")], check=True)
    flags = _cpu_flags()
    for kernel in ("vnni512", "vnni128", "fma512"):
        if not {"avx512f", "avx512_vnni", "avx512vl"} <= flags:
            # The program itself must refuse, in one line, on a CPU without the instructions.
            done = subprocess.run([str(native), kernel, "10", "1"], capture_output=True, text=True)
            assert done.returncode == 3 and "lacks its instructions" in done.stderr
            continue
        seconds, checksum = simd_ceiling.run_native(str(native), kernel, 1000, 2)
        assert seconds > 0
        assert checksum == expected_checksum(kernel, 1000)


@pytest.mark.large
def test_browser_kernels_compute_the_closed_form(tmp_path):
    """The WASM kernels in Chromium (needs wat2wasm and Chromium: apps/install_system_deps.sh)."""
    for tool in ("wat2wasm", "node"):
        if not shutil.which(tool):
            pytest.fail(f"{tool} is missing: run apps/install_system_deps.sh (make test does)")
    wasm = tmp_path / "kernels.wasm"
    subprocess.run(["wat2wasm", "--enable-relaxed-simd",
                    os.path.join(simd_ceiling.KERNELS, "kernels.wat"), "-o", str(wasm)], check=True)
    # 100,000 iterations: a call takes ~0.1 ms, well above the page's timer resolution.
    result = simd_ceiling.run_browser(str(wasm), 100_000, 2)
    assert sorted(result["kernels"]) == ["f32_relaxed_madd", "i8_relaxed_dot"]
    for kernel, measured in result["kernels"].items():
        assert measured["seconds"] > 0
        assert float(measured["checksum"]) == expected_checksum(kernel, 100_000)
