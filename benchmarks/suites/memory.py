"""Memory over a long run: resident memory (RSS) every 50 steps over `--memory_steps` training
steps of each implementation in its own process. Flat after warm-up is the goal; the slope over
the second half of the run (MB per 1,000 steps) is reported next to the peak."""

import numpy as np

from benchmarks.suites.startup import NAMES, probe


def slope_mb_per_1000_steps(rss):
    """Least-squares slope of RSS over the second half of the run, MB per 1,000 steps."""
    steps, mb = np.asarray([s for s, _ in rss], float), np.asarray([m for _, m in rss], float)
    half = steps >= steps.max() / 2
    if half.sum() < 2:
        raise ValueError("Too few RSS samples for a slope: raise the steps or sample more often.")
    return float(np.polyfit(steps[half], mb[half], 1)[0] * 1000.0)


def run(config_name, options, log=print):
    rows = []
    for impl in NAMES:
        log(f"  memory: {impl}, {options.memory_steps} steps")
        result = probe(impl, config_name, steps=options.memory_steps,
                       rss_every=max(1, options.memory_steps // 20), threads=options.threads)
        rows.append({
            "name": NAMES[impl],
            "rss_after_first_step_mb": result["rss_mb"][0][1],
            "rss_end_mb": result["rss_mb"][-1][1],
            "peak_rss_mb": result["peak_rss_mb"],
            "slope_mb_per_1000_steps": slope_mb_per_1000_steps(result["rss_mb"]),
            "rss_mb": result["rss_mb"],
            "step_s": float(np.median(result["step_s"])),
        })
    return [{
        "suite": "memory",
        "config": config_name,
        "case": f"{options.memory_steps} pretraining steps, batch 8, seq 128",
        "metric": "memory",
        "rows": rows,
    }]
