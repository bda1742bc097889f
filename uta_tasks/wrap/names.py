"""Names of a wrapped lm-eval task.

The source task ``gsm8k`` becomes the benchmark ``lm-eval:gsm8k`` (the name runs,
summaries and the report show) and the tasks ``uta_wrap_gsm8k``,
``uta_wrap_gsm8k_trunc``, ``uta_wrap_gsm8k_question`` in the group ``uta_wrap_gsm8k_all``.
A wrapped lm-eval group or tag ``mgsm_direct`` is the group ``uta_wrap_mgsm_direct`` of its
members' ``_all`` groups. On the command line, ``uta:NAME`` stands for the family group.
"""

from __future__ import annotations

from uta_tasks.schema import output

#: benchmark name of a wrapped task: this prefix and the source task's name
WRAP_PREFIX = "lm-eval:"
#: what ``uta-eval --tasks`` reads as "wrap this lm-eval task or group"
CLI_PREFIX = "uta:"
_TASK_PREFIX = "uta_wrap_"


def is_wrapped(benchmark: object) -> bool:
    """True when a ``uta_benchmark`` value names a wrapped lm-eval task."""
    return isinstance(benchmark, str) and benchmark.startswith(WRAP_PREFIX)


def benchmark_name(source: str) -> str:
    """The benchmark name of a wrapped source task (``lm-eval:gsm8k``)."""
    return f"{WRAP_PREFIX}{source}"


def source_of(benchmark: str) -> str:
    """The source task of a wrapped benchmark name."""
    return benchmark[len(WRAP_PREFIX):]


def task_name(source: str, perturbation: str) -> str:
    """The wrapped task of one perturbation (``uta_wrap_gsm8k_trunc``)."""
    base = f"{_TASK_PREFIX}{source}"
    return base if perturbation == output.PERTURBATION_NONE else f"{base}_{perturbation}"


def family_group(source: str) -> str:
    """The group of a wrapped task's family (``uta_wrap_gsm8k_all``)."""
    return f"{_TASK_PREFIX}{source}_all"


def group_name(source_group: str) -> str:
    """The group of a wrapped lm-eval group or tag (``uta_wrap_mgsm_direct``)."""
    return f"{_TASK_PREFIX}{source_group}"


def metric_name(metric: str, filter_name: str) -> str:
    """Our name of one (metric, filter) of the source task (``exact_match_flexible-extract``;
    ``metric`` alone under lm-eval's filter ``none``)."""
    name = metric if filter_name == "none" else f"{metric}_{filter_name}"
    return name.replace(",", "_")
