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


def bf16_matmul_candidates(size=2048):
    """`{name: (call, gflop)}`: the same matmul in bfloat16, TensorFlow's graph (oneDNN) and
    XLA, and PyTorch: whether each path reaches the CPU's bf16 units."""
    import tensorflow as tf
    import torch

    rng = np.random.default_rng(0)
    a = rng.standard_normal((size, size), dtype=np.float32)
    b = rng.standard_normal((size, size), dtype=np.float32)
    ta, tb = tf.cast(a, tf.bfloat16), tf.cast(b, tf.bfloat16)
    pa, pb = torch.from_numpy(a).bfloat16(), torch.from_numpy(b).bfloat16()

    def product(x, y):
        return tf.reduce_sum(tf.cast(tf.matmul(x, y), tf.float32))

    graph = tf.function(product)
    xla = tf.function(product, jit_compile=True)
    gflop = 2.0 * size**3 / 1e9
    return {
        "matmul bf16 (tf graph, oneDNN)": (lambda: graph(ta, tb).numpy(), gflop),
        "matmul bf16 (tf XLA)": (lambda: xla(ta, tb).numpy(), gflop),
        "matmul bf16 (torch)": (lambda: float((pa @ pb).float().sum()), gflop),
    }


def matmul_gflops(timings):
    """The best float32 GFLOP/s among the matmul candidates of a finished timing run."""
    rates = [t.rate for name, t in timings.items() if name.startswith("matmul fp32")]
    return max(rates) if rates else None


def is_matmul(name):
    return name.startswith("matmul ")
