"""lm-eval's ``results_<date>.json``, read with its shape checked: each section the
commands read holds the container lm-eval writes there, so that a damaged or foreign file
is refused with a message naming the file and the key, never met as a traceback later."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from uta_tasks.runs.jsonio import read_json

# section -> (type of the section, type of each of its values or None for any)
_SECTIONS: dict[str, tuple[type, type | None]] = {
    "results": (dict, dict),
    "configs": (dict, dict),
    "n-samples": (dict, dict),
    "group_subtasks": (dict, list),
    "versions": (dict, None),
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
    return results
