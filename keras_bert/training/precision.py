"""The precision (Keras dtype policy) a machine should train and run BERT in, and its checks.

One setting for every tool: `"auto"` (the default), `"float32"`, `"mixed_bfloat16"` or
`"mixed_float16"`, Keras's own policy names. Under a mixed policy the weights, the optimizer
state, checkpoints and exports stay float32; matmuls and most activations run in the reduced
type; softmax, LayerNorm, the task heads' logits and the losses are float32.

`"auto"` picks `mixed_bfloat16` where the hardware has bf16 matmul units (a GPU or TPU, or a
CPU with AMX-BF16 or AVX512-BF16, read from the CPU's flags) and float32 elsewhere, saying why
in one line. Measured on those CPUs (docs/benchmarks.md), bf16 trains faster at the same
accuracy; without the units TensorFlow emulates bf16 and it is slower than float32, so asking
for it there is an error rather than a silent slowdown.
"""

from keras_bert.api_export import keras_bert_export
from keras_bert.cpu_flags import CPU_FLAGS_ENV  # noqa: F401 (part of this module's API)
from keras_bert.cpu_flags import cpu_flags
from keras_bert.cpu_flags import cpu_model_name

DTYPE_POLICIES = ("auto", "float32", "mixed_bfloat16", "mixed_float16")

# CPU flags (as /proc/cpuinfo and lscpu spell them) of units that multiply in each type.
CPU_UNITS = {
    "bfloat16": ("amx_bf16", "avx512_bf16"),
    "float16": ("amx_fp16", "avx512_fp16"),
}


class PrecisionError(ValueError):
    """A precision the machine cannot run (or an unknown name)."""


def cpu_units(dtype, flags=None):
    """The CPU flags among `CPU_UNITS[dtype]` that this CPU has (empty: none)."""
    flags = cpu_flags() if flags is None else flags
    return [unit for unit in CPU_UNITS[dtype] if unit in flags]


def accelerators():
    """The GPUs/TPUs Keras's backend sees, as upper-case device kinds (`["GPU"]`; `[]`: CPU only)."""
    import keras

    try:
        devices = keras.distribution.list_devices()
    except (AttributeError, NotImplementedError, RuntimeError):
        return []  # a backend without keras.distribution support (PyTorch): counted as CPU only
    kinds = [device.split(":")[0].upper() for device in devices]
    return [kind for kind in kinds if kind in ("GPU", "TPU")]


@keras_bert_export("keras_bert.training.describe_machine")
def describe_machine():
    """`{"cpu", "bf16_units", "fp16_units", "accelerators"}`: what precision choices rest on."""
    flags = cpu_flags()
    return {
        "cpu": cpu_model_name(),
        "bf16_units": cpu_units("bfloat16", flags),
        "fp16_units": cpu_units("float16", flags),
        "accelerators": accelerators(),
    }


def _why_not(dtype, machine):
    names = " or ".join(u.upper().replace("_", "-") for u in CPU_UNITS[dtype])
    return f"this CPU ({machine['cpu']}) has no {names} units and there is no GPU/TPU"


@keras_bert_export("keras_bert.training.resolve_dtype_policy")
def resolve_dtype_policy(name="auto", machine=None, log=print):
    """The Keras dtype policy name to use for `name` on this machine.

    Args:
        name: one of `DTYPE_POLICIES`. `"auto"` is `"mixed_bfloat16"` where the hardware has
            bf16 units (GPU, TPU, or a CPU with AMX-BF16 / AVX512-BF16), else `"float32"`.
        machine: optional `describe_machine()` result (tests pass a made-up one).
        log: where the one-line notice of an `"auto"` choice goes (`None`: nowhere).

    Returns:
        `"float32"`, `"mixed_bfloat16"` or `"mixed_float16"`.

    Raises:
        PrecisionError: an unknown name, or a reduced precision this machine has no units for
            (TensorFlow would emulate it, slower than float32).
    """
    if name not in DTYPE_POLICIES:
        raise PrecisionError(
            f"Unknown dtype policy {name!r}; use one of {', '.join(DTYPE_POLICIES)}."
        )
    machine = describe_machine() if machine is None else machine
    say = log or (lambda *_: None)
    if name == "auto":
        if machine["accelerators"]:
            say(f"Precision: mixed_bfloat16 (auto: {machine['accelerators'][0]} found); "
                "weights and checkpoints stay float32.")
            return "mixed_bfloat16"
        if machine["bf16_units"]:
            say(f"Precision: mixed_bfloat16 (auto: the CPU has {', '.join(machine['bf16_units'])}); "
                "weights and checkpoints stay float32.")
            return "mixed_bfloat16"
        say(f"Precision: float32 (auto: {_why_not('bfloat16', machine)}, so bf16 would be "
            "emulated and slower).")
        return "float32"
    if name == "float32" or machine["accelerators"]:
        return name
    dtype = "bfloat16" if name == "mixed_bfloat16" else "float16"
    if not (machine["bf16_units"] if dtype == "bfloat16" else machine["fp16_units"]):
        raise PrecisionError(
            f"dtype policy {name} cannot run here: {_why_not(dtype, machine)}. "
            "Use float32 (or auto, which picks the fastest this machine has)."
        )
    return name


@keras_bert_export("keras_bert.training.set_dtype_policy")
def set_dtype_policy(name="auto", log=print):
    """Resolves `name` (see `resolve_dtype_policy`) and makes it Keras's global dtype policy.

    Models built afterwards compute in it; their weights stay float32. Returns the policy name.

    Example:
    >>> policy = keras_bert.training.set_dtype_policy("float32")
    >>> keras.config.dtype_policy().name
    'float32'
    """
    import keras

    policy = resolve_dtype_policy(name, log=log)
    keras.config.set_dtype_policy(policy)
    return policy


@keras_bert_export("keras_bert.training.default_jit_compile")
def default_jit_compile(policy, machine=None):
    """Whether to XLA-compile training under `policy`: the faster path as measured.

    On a GPU or TPU, and in float32 on a CPU, XLA. For bf16 on a CPU, TensorFlow's graph
    without XLA: XLA's CPU backend does not use the bf16 units (a 2048x2048 bf16 matmul under
    XLA ran at the float32 rate, without it at 1.9x to 4x that), so the oneDNN graph is the
    faster path there (docs/benchmarks.md).
    """
    machine = describe_machine() if machine is None else machine
    return bool(machine["accelerators"]) or policy == "float32"
