r"""Does XLA on this CPU reach the bf16 units? A 2048² matmul under each set of XLA flags.
Makes: docs/benchmarks.md, the "XLA flags" table.
Rerun: the command below.

    python experiments/xla_bf16_matmul.py

Each flag set runs in a fresh process (XLA reads XLA_FLAGS once) and times, in that process, the
bf16 matmul under XLA, the float32 one under XLA, and the bf16 one in TensorFlow's graph
(oneDNN). If XLA used the bf16 units, its bf16 rate would sit near the graph's, not near its own
float32 rate.
"""

import os
import subprocess
import sys

FLAG_SETS = [
    "",
    "--xla_cpu_use_onednn=true",
    "--xla_cpu_experimental_onednn_custom_call=true",
    "--xla_cpu_use_thunk_runtime=false",
    "--xla_cpu_use_thunk_runtime=false --xla_cpu_experimental_onednn_custom_call=true",
    "--xla_cpu_use_onednn=true --xla_cpu_experimental_onednn_custom_call=true",
    "--xla_allow_excess_precision=false",
]

_CHILD = r"""
import time, tensorflow as tf
tf.config.threading.set_intra_op_parallelism_threads(2)
a32, b32 = tf.random.normal((2048, 2048)), tf.random.normal((2048, 2048))
a, b = tf.cast(a32, tf.bfloat16), tf.cast(b32, tf.bfloat16)
product = lambda p, q: tf.reduce_sum(tf.cast(tf.matmul(p, q), tf.float32))
xla, graph = tf.function(product, jit_compile=True), tf.function(product)
def rate(fn, x, y):
    fn(x, y).numpy(); start = time.perf_counter()
    for _ in range(10): r = fn(x, y)
    r.numpy(); return 2 * 2048**3 / ((time.perf_counter() - start) / 10) / 1e9
print(f"{rate(xla, a, b):.0f} {rate(xla, a32, b32):.0f} {rate(graph, a, b):.0f}")
"""


def main():
    print("| XLA_FLAGS | bf16 XLA | float32 XLA | bf16 graph (oneDNN) |\n|---|---|---|---|")
    for flags in FLAG_SETS:
        env = dict(os.environ, XLA_FLAGS=flags, TF_CPP_MIN_LOG_LEVEL="3")
        done = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                              text=True)
        rates = done.stdout.split() if done.returncode == 0 else ["failed"] * 3
        print(f"| `{flags or '(none)'}` | " + " | ".join(f"{r} GFLOP/s" for r in rates) + " |")


if __name__ == "__main__":
    main()
