"""The CPU's model name and feature flags (/proc/cpuinfo), for choosing kernels and precision."""

import os

# Replaces the CPU flags read from /proc/cpuinfo (space-separated), e.g. to check what the tools
# do on a CPU without bf16 units; "none" means no flags at all.
CPU_FLAGS_ENV = "KERAS_BERT_CPU_FLAGS"


def cpu_model_name():
    """The CPU's model name from /proc/cpuinfo (`"unknown CPU"` where there is none)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def cpu_flags():
    """The CPU's feature flags: from `$KERAS_BERT_CPU_FLAGS` if set, else /proc/cpuinfo."""
    override = os.environ.get(CPU_FLAGS_ENV)
    if override is not None:
        return frozenset() if override.strip() == "none" else frozenset(override.split())
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def has_bfloat16_units(flags=None):
    """Whether the CPU multiplies in bfloat16 (AMX-BF16 or AVX512-BF16): where oneDNN runs a
    bfloat16 op natively rather than falling back to Eigen's bfloat16 arithmetic."""
    flags = cpu_flags() if flags is None else flags
    return "amx_bf16" in flags or "avx512_bf16" in flags
