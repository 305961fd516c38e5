"""The masking lab's figures: per-layer measures, pretraining curves, fine-tuning scores."""

import numpy as np

LAYER_PANELS = (
    ("token_probe_accuracy", "token-identity probe accuracy"),
    ("cka_to_input", "linear CKA with the embeddings (layer 0)"),
    ("cka_to_previous", "linear CKA with the previous layer"),
)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _finish(plt, figure, legend_axis, title, png):
    if legend_axis.get_legend_handles_labels()[0]:
        legend_axis.legend(fontsize=8)
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(png, dpi=100)
    plt.close(figure)


def plot_layers(results, variants, png, title, show_seeds=True):
    """Per-layer measures of `variants` (mean over seeds bold, each seed thin), 3 panels."""
    plt = _pyplot()
    figure, axes = plt.subplots(1, 3, figsize=(16, 4.4))
    for i, variant in enumerate(variants):
        color = f"C{i}"
        runs = [r["analysis"] for r in results.get(variant.name, {}).values() if "analysis" in r]
        if not runs:
            continue
        for axis, (key, name) in zip(axes, LAYER_PANELS):
            curves = np.array([[np.nan if v is None else v for v in run[key]] for run in runs])
            layers = np.arange(curves.shape[1])
            for curve in curves:
                axis.plot(layers, curve, color=color, lw=0.7, alpha=0.45)
            mean = [np.nan if np.isnan(c).all() else np.nanmean(c) for c in curves.T]
            axis.plot(layers, mean, color=color, lw=2, marker="o",
                      label=variant.label + (
                          f" ({len(runs)} seed{'s' if len(runs) > 1 else ''})" if show_seeds else ""))
            axis.set_title(name, fontsize=10)
            axis.set_xlabel("layer (0 = embeddings)")
            axis.set_xticks(layers)
            axis.grid(alpha=0.3)
    # A zoomed axis would make a 0.3 % difference look like a collapse.
    low = min([line.get_ydata().min() for line in axes[0].get_lines()] or [1.0])
    axes[0].set_ylim(min(0.8, low - 0.02), 1.005)
    _finish(plt, figure, axes[0], title, png)


def plot_pretraining(results, variants, png, title):
    """Training objective loss and accuracy against step, per variant (each seed a line)."""
    plt = _pyplot()
    figure, axes = plt.subplots(1, 2, figsize=(12, 4))
    for i, variant in enumerate(variants):
        first = True
        for entry in results.get(variant.name, {}).values():
            log = entry.get("pretraining")
            if not log:
                continue
            steps = [e["step"] for e in log]
            label = variant.label if first else None
            axes[0].plot(steps, [e["mlm_loss"] for e in log], color=f"C{i}", lw=1, label=label)
            axes[1].plot(steps, [e["mlm_accuracy"] for e in log], color=f"C{i}", lw=1, label=label)
            first = False
    axes[0].set_title("objective loss (masked or next token)")
    axes[1].set_title("objective accuracy (per log interval)")
    for axis in axes:
        axis.set_xlabel("step")
        axis.grid(alpha=0.3)
    _finish(plt, figure, axes[1], title, png)


def plot_finetuning(results, variants, tasks, metric_of, png):
    """One panel per task: each variant's seeds as dots and their mean as a bar."""
    plt = _pyplot()
    figure, axes = plt.subplots(1, len(tasks), figsize=(6 * len(tasks), 4.2), squeeze=False)
    shown = [v for v in variants if v.fine_tune]
    for axis, task in zip(axes[0], tasks):
        metric = metric_of(task)
        for i, variant in enumerate(shown):
            scores = [r[task][metric] for r in results.get(variant.name, {}).values() if task in r]
            if scores:
                axis.bar(i, np.mean(scores), color=f"C{i}", alpha=0.5)
                axis.scatter([i] * len(scores), scores, color=f"C{i}", zorder=3, s=14)
        axis.set_xticks(range(len(shown)))
        axis.set_xticklabels([v.label for v in shown], rotation=30, ha="right", fontsize=8)
        axis.set_title(f"{task} dev {metric}")
        axis.grid(alpha=0.3, axis="y")
    figure.tight_layout()
    figure.savefig(png, dpi=100)
    plt.close(figure)
