"""The dtype the quickstart's vLLM engines (lm_eval's and the local judge's) run in on this CPU."""

from __future__ import annotations

from pathlib import Path

# CPU flags of native bfloat16 arithmetic: x86 AVX512-BF16 and AMX-BF16 (``flags``), Arm's
# BF16 extension (``Features``).
BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16", "bf16"})


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> frozenset[str]:
    """The CPU's feature flags (empty where ``/proc/cpuinfo`` cannot be read).

    Args:
        cpuinfo: Linux's CPU description.
    """
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return frozenset()
    flags: set[str] = set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            flags.update(value.split())
    return frozenset(flags)


def cpu_dtype(flags: frozenset[str] | None = None) -> str:
    """``bfloat16`` where the CPU computes it natively, else ``float32``. Without native
    bfloat16 (an AVX2-only CPU, say) vLLM's CPU backend finds no oneDNN bfloat16 matmul,
    logs "Failed to create oneDNN linear, fallback to torch linear" and runs several times
    slower than in float32.

    Args:
        flags: the CPU's flags (:func:`cpu_flags` when None).
    """
    return "bfloat16" if (cpu_flags() if flags is None else flags) & BF16_FLAGS else "float32"
