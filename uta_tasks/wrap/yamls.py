"""The YAML of wrapped lm-eval tasks, for ``--include_path``.

Each wrapped task is the shared base of every uta task (``uta_tasks/tasks/_default_template_yaml``,
copied in, so the folder stands alone) plus its name, its data loader and its metadata: the
benchmark ``lm-eval:<source>``, the perturbation, the source task's version, the wrap
settings chosen and, for a task from a folder of the user's own, that folder
(``uta_include_path``, absolute), so that the wrapped task finds its source under plain
``lm_eval --include_path wrapped/`` (lm-eval's command line keeps one ``--include_path``).
A source task that scores by running code keeps ``unsafe_code: true``, so lm-eval's own
``--confirm_run_unsafe_code`` check applies to the wrapped task. A wrapped group keeps the
source group's ``aggregate_metric_list``, renamed to the wrapped tasks' metrics.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from uta_tasks.lm_eval_compat import source_tasks
from uta_tasks.probe import perturbations
from uta_tasks.tasks.generate import TASKS_DIR

from .benchmark import load
from .check import WrapPlan
from .names import benchmark_name, family_group, group_name, task_name
from .settings import INCLUDE_PATH_KEY, WrapSettings

HEADER = "# Written by `python -m uta_tasks wrap`: lm-eval's {source} as a user-turn probe.\n"
LOADER = f"{load.__module__}.{load.__qualname__}"


def _base() -> str:
    lines = (TASKS_DIR / "_default_template_yaml").read_text().splitlines(keepends=True)
    return "".join(line for line in lines if not line.startswith("#"))


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def task_yaml(source: str, perturbation: str, settings: dict[str, Any], unsafe: bool,
              include_path: tuple[str, ...] = ()) -> str:
    """One wrapped task's YAML.

    Args:
        source: the source task.
        perturbation: ``none``, ``trunc`` or ``question``.
        settings: metadata keys of the wrap settings (:mod:`uta_tasks.wrap.settings`).
        unsafe: the source task runs code to score.
        include_path: the extra task folders the source task is looked up in (absolute).
    """
    entry = source_tasks.lookup(source, include_path)
    version = ((entry.config.get("metadata") or {}) if entry else {}).get("version")
    meta = {"version": 1, "uta_benchmark": benchmark_name(source), "uta_perturbation": perturbation,
            "uta_source_version": version, **WrapSettings().recorded(),
            **({INCLUDE_PATH_KEY: list(include_path)} if include_path else {}), **settings}
    lines = [HEADER.format(source=source), _base(), f"task: {task_name(source, perturbation)}\n",
             f"custom_dataset: !function {LOADER}\n"]
    if unsafe:
        lines.append("unsafe_code: true\n")
    lines.append("metadata:\n")
    lines += [f"  {key}: {_scalar(value)}\n" for key, value in meta.items() if value is not None]
    return "".join(lines)


def _group_yaml(group: str, tasks: list[str], source: str, aggregate: tuple[dict[str, Any], ...] = ()) -> str:
    lines = [HEADER.format(source=source), f"group: {group}\n", "task:\n", *(f"  - {t}\n" for t in tasks)]
    if aggregate:
        lines.append("aggregate_metric_list:\n")
        for entry in aggregate:
            first, *rest = entry.items()
            lines.append(f"  - {first[0]}: {_scalar(first[1])}\n")
            lines += [f"    {key}: {_scalar(value)}\n" for key, value in rest]
    return "".join([*lines, "metadata:\n", "  version: 1\n"])


def files(wrap_plan: WrapPlan, settings: dict[str, Any]) -> dict[str, str]:
    """Every file of a wrap: relative path -> content.

    Args:
        wrap_plan: the tasks and groups (from :func:`uta_tasks.wrap.check.plan`).
        settings: metadata keys of the wrap settings, for every task.
    """
    out: dict[str, str] = {}
    for source in wrap_plan.tasks:
        names = []
        for perturbation in perturbations.names():
            names.append(task_name(source, perturbation))
            out[f"{source}/{names[-1]}.yaml"] = task_yaml(source, perturbation, settings,
                                                          source in wrap_plan.unsafe, wrap_plan.include_path)
        out[f"{source}/_{family_group(source)}.yaml"] = _group_yaml(family_group(source), names, source)
    for group, members in wrap_plan.groups.items():
        out[f"_groups/{group_name(group)}.yaml"] = _group_yaml(
            group_name(group), [family_group(m) for m in members], group, wrap_plan.aggregates.get(group, ()))
    return out


def write(folder: Path, wrap_plan: WrapPlan, settings: dict[str, Any]) -> list[Path]:
    """Write a wrap into a folder; returns the files written."""
    written = []
    for relative, text in files(wrap_plan, settings).items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written.append(path)
    return written
