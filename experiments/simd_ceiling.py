r"""Can the browser reach native LiteRT's speed on this CPU? The per-core SIMD ceilings of both.

Makes: docs/benchmarks.md, "Why the browser is 4-5x slower here" (`docs/runs/apps/simd_ceiling.{md,json}`).
Rerun (nothing else on the machine; needs wat2wasm from Debian's wabt, gcc and Chromium, which
`apps/install_system_deps.sh` installs):

    python -m experiments.simd_ceiling --output_prefix=docs/runs/apps/simd_ceiling

The QA models' time goes to matrix products: int8 ones in the int8 files (XNNPACK's QD8/QS8
kernels), float32 ones in the float file. Their inner loops are one instruction repeated: an int8
dot product into int32 lanes, or a float32 fused multiply-add. This times that instruction, with
8 independent accumulators in registers and no memory traffic, on one thread:

- natively (experiments/simd_ceiling/kernels.c, gcc): AVX-512 VNNI `vpdpbusd` on 512-bit and on
  128-bit registers, and AVX-512 `vfmadd` on 512-bit registers;
- in Chromium (experiments/simd_ceiling/kernels.wat, apps/web/e2e/simd_ceiling.mjs): WebAssembly
  relaxed SIMD's `i32x4.relaxed_dot_i8x16_i7x16_add_s` and `f32x4.relaxed_madd`, the widest
  int8 and float32 multiply-adds WebAssembly has (128-bit).

Every kernel's checksum is checked against its closed form, computed here with numpy from the
constant vectors (the same in both files), so a kernel the compiler folded away fails instead of
reporting an impossible speed. The ratio of the ceilings bounds what any WASM kernel can do
against the native one on this CPU, whatever the library.
"""

import json
import os
import shutil
import subprocess
import tempfile

import numpy as np
from absl import app
from absl import flags

from keras_bert.atomic_files import atomic_open
from keras_bert.cli.common import usage

FLAGS = flags.FLAGS
flags.DEFINE_integer("iterations", 1_000_000, "Loop iterations per call (8 instructions each).")
flags.DEFINE_integer("calls", 50, "Timed calls per kernel.")
flags.DEFINE_string("output_prefix", None, "Writes <output_prefix>.json and <output_prefix>.md.")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(ROOT, "experiments", "simd_ceiling")
BROWSER = os.path.join(ROOT, "apps", "web", "e2e", "simd_ceiling.mjs")
# The constant vectors of kernels.c and kernels.wat: int8 a (signed), b (0..127), float a, b.
A8 = np.array([-3, 1, 4, -1, 5, -9, 2, -6, 5, 3, -5, 8, -9, 7, -9, 3], np.int64)
B8 = np.array([2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5, 9, 0, 4, 5], np.int64)
AF = np.array([1, -1, 2, 1], np.float64)
BF = np.array([1, 1, 1, 3], np.float64)
ACCUMULATORS = 8
# name: (where, multiply-adds per instruction, 128-bit copies per register, integer lanes?)
KERNEL_SHAPES = {
    "vnni512": ("native", 64, 4, True),
    "vnni128": ("native", 16, 1, True),
    "fma512": ("native", 16, 4, False),
    "i8_relaxed_dot": ("wasm", 16, 1, True),
    "f32_relaxed_madd": ("wasm", 4, 1, False),
}


def _wrap32(x):
    return (int(x) + 2**31) % 2**32 - 2**31


def expected_checksum(kernel, iterations):
    """The sum of the 8 accumulators' lanes after `iterations`, as the kernel computes it
    (accumulator k starts at k in every lane; int32 lanes and their sum wrap)."""
    _, _, copies, integer = KERNEL_SHAPES[kernel]
    if integer:
        # Each int32 lane adds the dot product of its 4 bytes every instruction.
        lane_dots = (A8 * B8).reshape(4, 4).sum(1)
        lanes = [_wrap32(k + iterations * d) for k in range(ACCUMULATORS) for d in lane_dots]
        return _wrap32(copies * sum(lanes))  # the final sums are int32 too
    lanes = [k + iterations * a * b for k in range(ACCUMULATORS) for a, b in zip(AF, BF)]
    return copies * float(sum(lanes))


def _build(tmp):
    for tool, package in (("wat2wasm", "wabt"), ("gcc", "gcc"), ("node", "nodejs")):
        if not shutil.which(tool):
            raise app.UsageError(f"{tool} is missing: apt-get install -y {package}")
    wasm = os.path.join(tmp, "kernels.wasm")
    native = os.path.join(tmp, "kernels")
    subprocess.run(["wat2wasm", "--enable-relaxed-simd", os.path.join(KERNELS, "kernels.wat"),
                    "-o", wasm], check=True)
    subprocess.run(["gcc", "-O2", "-o", native, os.path.join(KERNELS, "kernels.c")], check=True)
    return wasm, native


def run_native(native, kernel, iterations, calls):
    """(seconds for `calls` calls, one call's checksum), the best of 3 runs."""
    best = None
    for _ in range(3):
        done = subprocess.run([native, kernel, str(iterations), str(calls)], capture_output=True,
                              text=True, timeout=600)
        if done.returncode != 0:
            raise RuntimeError(f"{kernel}: {done.stderr.strip()}")
        seconds, checksum = done.stdout.split()
        if best is None or float(seconds) < best[0]:
            best = (float(seconds), float(checksum))
    return best


def run_browser(wasm, iterations, calls):
    done = subprocess.run(["node", BROWSER, "--wasm", wasm, "--iterations", str(iterations),
                           "--calls", str(calls)], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"simd_ceiling.mjs: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def table(rows, browser):
    lines = [
        "| where | instruction | register | multiply-adds per instruction | G multiply-adds/s, 1 thread | native 512-bit / this |",
        "|---|---|---|---|---|---|",
    ]
    names = {
        "vnni512": ("native", "AVX-512 VNNI `vpdpbusd` (int8)", "512-bit"),
        "vnni128": ("native", "AVX-512 VNNI `vpdpbusd` (int8)", "128-bit"),
        "fma512": ("native", "AVX-512 `vfmadd` (float32)", "512-bit"),
        "i8_relaxed_dot": (browser, "`i32x4.relaxed_dot_i8x16_i7x16_add_s` (int8)", "128-bit"),
        "f32_relaxed_madd": (browser, "`f32x4.relaxed_madd` (float32)", "128-bit"),
    }
    for kernel, row in rows.items():
        where, instruction, register = names[kernel]
        reference = rows["vnni512" if KERNEL_SHAPES[kernel][3] else "fma512"]["gmacs"]
        lines.append(f"| {where} | {instruction} | {register} | {KERNEL_SHAPES[kernel][1]} | "
                     f"{row['gmacs']:.1f} | {reference / row['gmacs']:.2f}x |")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    if FLAGS.iterations < 1 or FLAGS.calls < 1:
        raise app.UsageError("--iterations and --calls must be positive.")
    if ACCUMULATORS + 3 * FLAGS.iterations >= 2**24:
        # A float32 lane grows by up to 3 an instruction; its sums are exact below 2^24.
        raise app.UsageError(f"--iterations must be below {(2**24 - ACCUMULATORS) // 3:,} "
                             "(float32 sums stop being exact, and the checksum with them).")
    with tempfile.TemporaryDirectory() as tmp:
        wasm, native = _build(tmp)
        measured = {k: run_native(native, k, FLAGS.iterations, FLAGS.calls)
                    for k in ("vnni512", "vnni128", "fma512")}
        browser = run_browser(wasm, FLAGS.iterations, FLAGS.calls)
    for kernel, result in browser["kernels"].items():
        measured[kernel] = (result["seconds"], float(result["checksum"]))
    rows = {}
    for kernel, (seconds, checksum) in measured.items():
        expected = expected_checksum(kernel, FLAGS.iterations)
        if checksum != expected:
            raise RuntimeError(f"{kernel}: checksum {checksum} is not the closed form {expected}: "
                               "the kernel did not compute what it should, its time means nothing.")
        macs = FLAGS.calls * FLAGS.iterations * ACCUMULATORS * KERNEL_SHAPES[kernel][1]
        rows[kernel] = dict(seconds=seconds, checksum=checksum, gmacs=macs / seconds / 1e9)
    result = dict(iterations=FLAGS.iterations, calls=FLAGS.calls, browser=browser["browser"],
                  kernels=rows)
    markdown = table(rows, browser["browser"])
    print(markdown)
    if FLAGS.output_prefix:
        os.makedirs(os.path.dirname(FLAGS.output_prefix) or ".", exist_ok=True)
        with atomic_open(FLAGS.output_prefix + ".json", "w") as f:
            json.dump(result, f, indent=1)
        with atomic_open(FLAGS.output_prefix + ".md", "w") as f:
            f.write(markdown)


if __name__ == "__main__":
    usage.run(main)
