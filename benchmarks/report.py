"""Tables (Markdown) and a plot of benchmark results (the dicts the suites return)."""

import math


def _fmt(value, digits=3):
    if value is None:
        return "-"
    if value == 0:
        return "0"
    return f"{value:.{max(0, digits - 1 - int(math.floor(math.log10(abs(value)))))}f}"


def result_table(result):
    """A Markdown table of one suite case: each candidate's median rate, its range over the
    rounds, its ratio to the reference candidate and, where FLOPs are known, its GFLOP/s and
    share of the matmul rate measured in the same rounds."""
    if result.get("metric") in ("startup", "memory", "command_startup"):
        return _process_table(result)
    timings = {t["name"]: t for t in result["timings"]}
    reference = timings.get(result.get("reference"))
    matmul = result.get("matmul_gflops")
    if result.get("metric") == "latency":
        return _latency_table(result, timings, reference)
    lines = [
        f"**{result['suite']} · {result['config']} · {result['case']}**"
        + (f" (fp32 matmul rate in these rounds: {matmul:.0f} GFLOP/s)" if matmul else ""),
        "",
        f"| candidate | median | min - max | vs {result.get('reference') or '-'} | GFLOP/s | of matmul rate |",
        "|---|---|---|---|---|---|",
    ]
    for name, t in timings.items():
        ratio = t["rate"] / reference["rate"] if reference and t["unit"] == reference["unit"] else None
        share = t["gflops"] / matmul if t.get("gflops") and matmul else None
        lines.append(
            f"| {name} | {_fmt(t['rate'])} {t['unit']} | {_fmt(t['rate_min'])} - "
            f"{_fmt(t['rate_max'])} | {_fmt(ratio) + 'x' if ratio else '-'} | "
            f"{_fmt(t.get('gflops'))} | {f'{100 * share:.0f} %' if share else '-'} |"
        )
    return "\n".join(lines) + _notes_and_tables(result)


def _notes_and_tables(result):
    text = "".join(f"\n\n{key}: {value}" for key, value in (result.get("notes") or {}).items())
    for title, table in (result.get("tables") or {}).items():
        text += f"\n\n{title}:\n\n{table}"
    return text


def _latency_table(result, timings, reference):
    lines = [
        f"**{result['suite']} · {result['config']} · {result['case']}** (latency per call)",
        "",
        f"| candidate | median | min - max | speed vs {result['reference']} |",
        "|---|---|---|---|",
    ]
    for name, t in timings.items():
        seconds = t["seconds"]
        lines.append(
            f"| {name} | {_fmt(t['median_ms'])} ms | {_fmt(1000 * min(seconds))} - "
            f"{_fmt(1000 * max(seconds))} ms | {_fmt(reference['median_ms'] / t['median_ms'])}x |"
        )
    return "\n".join(lines) + _notes_and_tables(result)


_PROCESS_COLUMNS = {
    "startup": [("import_s", "import", "s"), ("build_s", "build", "s"),
                ("first_step_s", "first step", "s"), ("time_to_first_step_s", "to first step", "s"),
                ("step_s", "later step", "s"), ("peak_rss_mb", "peak RSS", "MB")],
    "memory": [("rss_after_first_step_mb", "RSS after step 1", "MB"),
               ("rss_end_mb", "RSS at the end", "MB"), ("peak_rss_mb", "peak RSS", "MB"),
               ("slope_mb_per_1000_steps", "slope, 2nd half", "MB / 1k steps"),
               ("step_s", "step", "s")],
    "command_startup": [("wall_s", "median", "s"), ("min_s", "min", "s"), ("max_s", "max", "s"),
                        ("vs_keras_hub", "vs import keras_hub", "x")],
}


def _process_table(result):
    columns = _PROCESS_COLUMNS[result["metric"]]
    lines = [
        f"**{result['suite']} · {result['config']} · {result['case']}**",
        "",
        "| candidate | " + " | ".join(f"{title} ({unit})" for _, title, unit in columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for row in result["rows"]:
        lines.append(f"| {row['name']} | " + " | ".join(_fmt(row[k]) for k, _, _ in columns) + " |")
    return "\n".join(lines)


def precision_ratios(results):
    """Markdown tables of each candidate's mixed_bfloat16 / float32 rate, for cases run in
    both precisions (`--dtype_policies=float32,mixed_bfloat16`)."""
    by_case = {}
    for result in results:
        if result.get("timings") and result.get("dtype_policy") and result["suite"] != "precision":
            case = result["case"].rsplit(" · ", 1)[0]
            by_case.setdefault((result["suite"], result["config"], case), {})[
                result["dtype_policy"]] = result
    tables = []
    for (suite, config, case), pair in by_case.items():
        if set(pair) != {"float32", "mixed_bfloat16"}:
            continue
        f32 = {t["name"]: t for t in pair["float32"]["timings"]}
        bf16 = {t["name"]: t for t in pair["mixed_bfloat16"]["timings"]}
        lines = [f"**{suite} · {config} · {case}: mixed_bfloat16 vs float32**", "",
                 "| candidate | float32 | mixed_bfloat16 | bf16 / float32 |", "|---|---|---|---|"]
        for name, t in f32.items():
            if name in bf16 and t["unit"] != "GFLOP/s":
                lines.append(f"| {name} | {_fmt(t['rate'])} {t['unit']} | "
                             f"{_fmt(bf16[name]['rate'])} {t['unit']} | "
                             f"{_fmt(bf16[name]['rate'] / t['rate'])}x |")
        tables.append("\n".join(lines))
    return tables


def report(results):
    return "\n\n".join([result_table(r) for r in results] + precision_ratios(results)) + "\n"


def plot(results, path):
    """One panel per case: each candidate's median rate relative to the reference, with its
    min-max range over the rounds as an error bar; a memory suite's RSS curves go to
    `<path>_rss.png`. Returns the paths written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = [r for r in results if r.get("reference")]
    memory = [r for r in results if r.get("metric") == "memory"]
    written = [_plot_memory(memory[0], path.replace(".png", "_rss.png"))] if memory else []
    if not cases:
        return written
    fig, axes = plt.subplots(len(cases), 1, figsize=(8, 0.5 + 2.0 * len(cases)), squeeze=False)
    for ax, result in zip(axes[:, 0], cases):
        timings = [t for t in result["timings"] if t["unit"] != "GFLOP/s"]
        reference = next(t for t in timings if t["name"] == result["reference"])
        names = [t["name"] for t in timings]
        ratios = [t["rate"] / reference["rate"] for t in timings]
        low = [r - t["rate_min"] / reference["rate"] for r, t in zip(ratios, timings)]
        high = [t["rate_max"] / reference["rate"] - r for r, t in zip(ratios, timings)]
        colors = ["tab:orange" if n.startswith("keras_bert") else "tab:gray" for n in names]
        ax.barh(names, ratios, xerr=[low, high], color=colors, capsize=3)
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.invert_yaxis()
        ax.set_title(f"{result['suite']} · {result['config']} · {result['case']}", fontsize=9)
        ax.set_xlabel(f"{timings[0]['unit']} relative to {result['reference']} (bars: min-max)",
                      fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return written + [path]


def _plot_memory(result, path):
    """Resident memory against training step, one line per implementation."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.5))
    for row in result["rows"]:
        steps, mb = zip(*row["rss_mb"])
        ax.plot(steps, mb, marker=".", label=row["name"])
    ax.set_xlabel("training step")
    ax.set_ylabel("resident memory (MB)")
    ax.set_title(f"{result['config']}: {result['case']}", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
