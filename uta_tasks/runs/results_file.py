"""lm-eval's ``results_<date>.json``, read with its shape checked: each section the
commands read holds the container lm-eval writes there, so that a damaged or foreign file
is refused with a message naming the file and the key, never met as a traceback later."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from uta_tasks.datasets import BENCHMARKS
from uta_tasks.probe import perturbations
from uta_tasks.runs.jsonio import read_json
from uta_tasks.schema import output
from uta_tasks.wrap import is_wrapped

# section -> (type of the section, type of each of its values or None for any)
_SECTIONS: dict[str, tuple[type, type | None]] = {
    "results": (dict, dict),
    "configs": (dict, dict),
    "n-samples": (dict, dict),
    "group_subtasks": (dict, list),
    "versions": (dict, None),
    "n-shot": (dict, None),
    "task_hashes": (dict, None),
    "higher_is_better": (dict, dict),
    "config": (dict, None),
}


def read_results(path: Path) -> dict[str, Any]:
    """The results file at ``path``, its sections checked (see :data:`_SECTIONS`).

    Args:
        path: a ``results_<date>.json`` written by lm-eval (or uta-rejudge).

    Raises:
        ValueError: not JSON, beyond the reader's bounds, or a section of another shape;
            the message names the file and the key.
    """
    results = read_json(path)
    if not isinstance(results, dict) or "results" not in results:
        raise ValueError(f"{path} has no 'results' key: it is not an lm-eval results file")
    if not isinstance(results["results"], dict):
        raise ValueError(f"{path}: 'results' is {_kind(results['results'])}, not the dict of task rows lm-eval writes")
    for key, (kind, item_kind) in _SECTIONS.items():
        section = results.get(key)
        if section is None:
            continue
        if not isinstance(section, kind):
            raise ValueError(f"{path}: {key!r} is {type(section).__name__}, not the {kind.__name__} lm-eval writes")
        if item_kind is None or not isinstance(section, dict):
            continue
        for name, value in section.items():
            if value is not None and not isinstance(value, item_kind):
                raise ValueError(f"{path}: {key}[{name!r}] is {type(value).__name__}, not the "
                                 f"{item_kind.__name__} lm-eval writes")
    for name, config in (results.get("configs") or {}).items():
        metadata = (config or {}).get("metadata")
        if metadata is not None and not isinstance(metadata, dict):
            raise ValueError(f"{path}: configs[{name!r}]['metadata'] is {type(metadata).__name__}, not a dict")
        _check_task(path, name, config or {}, metadata or {})
    for name, counts in (results.get("n-samples") or {}).items():
        for key, value in (counts or {}).items():
            if not _count(value):
                raise ValueError(f"{path}: n-samples[{name!r}][{key!r}] is {value!r}, not a count of docs")
    return results


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _count(value: Any) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)


def _check_task(path: Path, name: str, config: dict[str, Any], metadata: dict[str, Any]) -> None:
    """A uta task's benchmark, perturbation and repeats, checked: a value this version does not
    know cannot be measured (refused, naming the file and key)."""
    benchmark = metadata.get(output.META_BENCHMARK)
    if benchmark is not None and benchmark not in BENCHMARKS and not is_wrapped(benchmark):
        raise ValueError(f"{path}: configs[{name!r}]['metadata'][{output.META_BENCHMARK!r}] is {benchmark!r}, not a "
                         f"benchmark this version knows ({', '.join(BENCHMARKS)}, or a wrapped lm-eval task)")
    perturbation = metadata.get(output.META_PERTURBATION)
    if perturbation is not None and perturbation not in perturbations.names():
        raise ValueError(f"{path}: configs[{name!r}]['metadata'][{output.META_PERTURBATION!r}] is {perturbation!r}, "
                         f"not one of {list(perturbations.names())}")
    repeats = config.get("repeats")
    if not _count(repeats):
        raise ValueError(f"{path}: configs[{name!r}]['repeats'] is {repeats!r}, not a number of repeats")
