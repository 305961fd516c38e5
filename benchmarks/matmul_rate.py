"""The machine's own dense fp32 matmul rate, timed as one more candidate in a suite's rounds."""

import numpy as np


def matmul_candidates(size=2048):
    """`{name: (call, gflop)}` (a candidate's rate is then GFLOP/s): a `size`-square fp32 matmul in TensorFlow under XLA and in
    NumPy (OpenBLAS). The faster is what the hardware delivers to a well-fed GEMM."""
    import tensorflow as tf

    rng = np.random.default_rng(0)
    a = rng.standard_normal((size, size), dtype=np.float32)
    b = rng.standard_normal((size, size), dtype=np.float32)
    ta, tb = tf.constant(a), tf.constant(b)
    # The whole product is reduced: a slice of it would let XLA skip most of the work.
    xla_matmul = tf.function(lambda x, y: tf.reduce_sum(tf.matmul(x, y)), jit_compile=True)
    gflop = 2.0 * size**3 / 1e9
    return {
        "matmul fp32 (tf XLA)": (lambda: xla_matmul(ta, tb).numpy(), gflop),
        "matmul fp32 (numpy)": (lambda: float((a @ b)[0, 0]), gflop),
    }


def matmul_gflops(timings):
    """The best GFLOP/s among the matmul candidates of a finished timing run."""
    rates = [t.rate for name, t in timings.items() if is_matmul(name)]
    return max(rates) if rates else None


def is_matmul(name):
    return name.startswith("matmul fp32")
