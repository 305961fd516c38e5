"""Interleaved timing: every candidate runs once per round, the order rotating between rounds.

On a shared machine the speed drifts by 10-15 % over minutes. Timing candidate A for a minute
and then candidate B would put that drift into the ratio; interleaving spreads it over both, and
the rotation keeps a candidate from always running right after the same neighbour (caches,
thermal state, another process waking up).

Before each timed call the harness waits `settle_s` (untimed). Thread pools spin for a while
after their work ends: PyTorch's OpenMP workers keep both cores busy for tens of milliseconds,
and a TensorFlow step started in that window measured 13 % slower on a 2-core Zen 4 (a bf16
2048x2048 matmul at 350 instead of 409 GFLOP/s; 50 ms of sleep recovered most of it, 300 ms all).
Without the pause the ratio would charge one library for its neighbour's idle spinning.
"""

import dataclasses
import time

import numpy as np


@dataclasses.dataclass
class Timing:
    """Seconds per call of one candidate, and how many items (sequences, examples) a call does."""

    name: str
    seconds: list
    items_per_call: float
    unit: str = "seq/s"
    flops_per_call: float = 0.0

    @property
    def median_s(self):
        return float(np.median(self.seconds))

    @property
    def rate(self):
        """Items per second at the median call."""
        return self.items_per_call / self.median_s

    @property
    def rate_spread(self):
        """`(low, high)` items per second at the slowest and fastest call."""
        return self.items_per_call / max(self.seconds), self.items_per_call / min(self.seconds)

    @property
    def gflops(self):
        return self.flops_per_call / self.median_s / 1e9

    def to_json(self):
        low, high = self.rate_spread
        return {
            "name": self.name,
            "unit": self.unit,
            "rate": self.rate,
            "rate_min": low,
            "rate_max": high,
            "median_ms": 1000.0 * self.median_s,
            "seconds": [float(s) for s in self.seconds],
            "items_per_call": self.items_per_call,
            "gflops": self.gflops if self.flops_per_call else None,
        }


SETTLE_S = 0.3


def interleaved(candidates, rounds=5, warmup=1, log=print, settle_s=SETTLE_S, sleep=time.sleep):
    """Times `candidates` (`{name: (call, items_per_call)}`), one call of each per round.

    Each `call()` must return only when its work is done (fetch a result to host memory: both
    TensorFlow and PyTorch may return before the computation ends). `warmup` calls of each
    candidate run first and are not timed (tracing, XLA compilation, allocator growth).
    `settle_s` seconds pass (via `sleep`) before every timed call, outside its timing.

    Returns:
        `{name: Timing}` in the candidates' order.
    """
    if rounds < 1:
        raise ValueError(f"rounds={rounds}: need at least one timed round.")
    if settle_s < 0:
        raise ValueError(f"settle_s={settle_s}: the pause before each timed call cannot be "
                         "negative.")
    names = list(candidates)
    for name in names:
        for _ in range(warmup):
            candidates[name][0]()
        log(f"  warmed up {name}")
    seconds = {name: [] for name in names}
    for round_index in range(rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            call = candidates[name][0]
            if settle_s:
                sleep(settle_s)
            start = time.perf_counter()
            call()
            seconds[name].append(time.perf_counter() - start)
        log(
            f"  round {round_index + 1}/{rounds}: "
            + ", ".join(f"{n} {1000 * seconds[n][-1]:.0f} ms" for n in names)
        )
    return {name: Timing(name, seconds[name], candidates[name][1]) for name in names}
