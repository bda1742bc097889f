"""Judge test-retest: the same saved user turns judged K times with the verdict cache off.

``uta-rejudge OUTPUT_DIR --metadata '{...}' --output_path DIR --retest K`` (K >= 3) judges
every saved user turn K times with ``judge_cache`` switched off for these calls only, so
every repeat is a fresh request and the normal cache is neither read nor written. Per task
it reports, over the turns judged in every repeat:

- ``flip_share``: the share of turns whose genuine decision is not the same in all K repeats;
- ``rates``: the task's follow-up rate (the ``u`` turns, as ``genuine_followup``) in each
  repeat, and ``spread`` = max - min of them: the judge's own noise on that rate;
- ``alpha``: Krippendorff's alpha (nominal, binary) of the genuine decision with the repeats
  as raters, and its bootstrap interval (:mod:`uta_tasks.stats.alpha`).

``retest.json`` (schema ``uta-retest/1``, read by :mod:`uta_tasks.runs.retest_file`) holds
these; ``uta-report --retest`` and ``uta-gate --retest`` read it and flag a rate difference
smaller than the spread.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from uta_tasks.runs.atomic import write_text
from uta_tasks.runs.retest_file import FILE_NAME, SCHEMA
from uta_tasks.schema.probe import VERDICT, ProbeRecord
from uta_tasks.stats.alpha import Alpha, krippendorff_alpha

MIN_REPEATS = 3
Unit = tuple[int, int, str]  # (sample index, repeat index, record field)


@dataclass(frozen=True)
class TaskRetest:
    """The judge's repeatability on one task.

    Attributes:
        task: task name.
        repeats: K, the judge calls per turn.
        turns: turns judged in every repeat.
        unjudged: turns left out because a repeat left them unjudged.
        flipped: turns whose genuine decision differs between repeats.
        flip_share: ``flipped / turns`` (None without turns).
        rates: the follow-up rate of each repeat (None for a repeat with no judged ``u``).
        spread: max - min of ``rates``.
        alpha: Krippendorff's alpha of the repeats on genuine.
    """

    task: str
    repeats: int
    turns: int
    unjudged: int
    flipped: int
    flip_share: float | None
    rates: list[float | None]
    spread: float | None
    alpha: Alpha

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        data = asdict(self)
        data["alpha"] = self.alpha.to_dict()
        return data


def judged_units(records: Iterable[Sequence[ProbeRecord]]) -> dict[Unit, bool | None]:
    """Every judged field of a task's probe records: its genuine decision, None when unjudged.

    Args:
        records: per sample, its :class:`~uta_tasks.schema.probe.ProbeRecord` objects (read one at a time).
    """
    out: dict[Unit, bool | None] = {}
    for i, per_doc in enumerate(records):
        for r, record in enumerate(per_doc):
            for name, verdict in record.verdicts().items():
                if verdict is None:
                    continue
                judged = verdict.judged and verdict.genuine is not None
                out[(i, r, name)] = bool(verdict.genuine) if judged else None
    return out


def measure_task(task: str, repeats: Sequence[dict[Unit, bool | None]], replicates: int = 2000,
                 seed: int = 0) -> TaskRetest:
    """Repeatability of one task from its K judged repeats.

    Args:
        task: task name.
        repeats: per repeat, unit -> genuine decision (None: unjudged).
        replicates: bootstrap resamples of alpha.
        seed: bootstrap seed.
    """
    units = sorted(set().union(*repeats), key=repr)
    complete = [u for u in units if all(rep.get(u) is not None for rep in repeats)]
    flipped = sum(1 for u in complete if len({rep[u] for rep in repeats}) > 1)
    rates: list[float | None] = []
    for rep in repeats:
        own = [bool(v) for u, v in rep.items() if u[2] == VERDICT and v is not None]
        rates.append(sum(own) / len(own) if own else None)
    known = [r for r in rates if r is not None]
    names = [f"repeat {k + 1}" for k in range(len(repeats))]
    answers = [{repr(u): rep[u] for u in units if rep.get(u) is not None} for rep in repeats]
    alpha = krippendorff_alpha(names, answers, (True, False), replicates, seed)
    return TaskRetest(
        task=task, repeats=len(repeats), turns=len(complete), unjudged=len(units) - len(complete), flipped=flipped,
        flip_share=flipped / len(complete) if complete else None, rates=rates,
        spread=max(known) - min(known) if known else None, alpha=alpha,
    )


def retest(paths: Sequence[str | Path], judge_metadata: dict[str, Any], repeats: int, *,
           replicates: int = 2000, seed: int = 0) -> list[TaskRetest]:
    """Judge every saved user turn ``repeats`` times with the cache off; measure each task.

    Args:
        paths: lm-eval output folders written with ``--log_samples``.
        judge_metadata: judge settings (``judge_cache`` is switched off for these calls).
        repeats: K >= 3.
        replicates: bootstrap resamples of alpha.
        seed: bootstrap seed.
    """
    from uta_tasks.judge import preflight
    from uta_tasks.judge.settings import JudgeSettings
    from uta_tasks.runs.rescore import load_scored

    from .run import judge_saved

    if repeats < MIN_REPEATS:
        raise ValueError(f"--retest {repeats}: judge each turn at least {MIN_REPEATS} times to measure its spread")
    fresh = JudgeSettings.from_metadata({**judge_metadata, "judge_cache": "off"})
    if not fresh.enabled:
        raise ValueError("uta-rejudge --retest: the judge is off (judge=none): there is nothing to retest")
    load_scored(paths)  # every file read (and a bad one named) before the judge is called
    preflight(fresh)
    per_task: dict[str, list[dict[Unit, bool | None]]] = {}
    for _ in range(repeats):
        for task in judge_saved(paths, fresh):
            per_task.setdefault(task.task, []).append(judged_units(task.records))
    return [measure_task(task, reps, replicates, seed) for task, reps in per_task.items()]


def write_retest(results: Sequence[TaskRetest], output_path: Path, judge: dict[str, Any]) -> Path:
    """Write ``retest.json``.

    Args:
        results: from :func:`retest`.
        output_path: the folder.
        judge: the judge description (model, prompt version, sampling; never a key).
    """
    output_path.mkdir(parents=True, exist_ok=True)
    path = output_path / FILE_NAME
    data = {"schema": SCHEMA, "judge": judge, "tasks": {r.task: r.to_dict() for r in results}}
    write_text(path, json.dumps(data, indent=2) + "\n")
    return path


def render(results: Sequence[TaskRetest]) -> str:
    """The console table.

    Args:
        results: from :func:`retest`.
    """
    lines = ["task  turns  flipped %  rates per repeat (%)  spread (pp)  Krippendorff alpha [95%]"]
    for r in results:
        rates = " / ".join("—" if x is None else f"{100 * x:.1f}" for x in r.rates)
        flip = "—" if r.flip_share is None else f"{100 * r.flip_share:.1f}"
        spread = "—" if r.spread is None else f"{100 * r.spread:.1f}"
        a = r.alpha
        alpha = "undefined" if a.value is None else f"{a.value:.3f}" + (
            f" [{a.ci[0]:.3f}, {a.ci[1]:.3f}]" if a.ci else " [-]")
        lines.append(f"{r.task}  {r.turns}  {flip}  {rates}  {spread}  {alpha}")
    return "\n".join(lines) + "\n"
