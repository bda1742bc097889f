"""Verdicts whose label and genuine decision contradict each other, per task.

The judge answers a label and a genuine decision separately. ``plausible_followup`` is the
genuine label and every other label but ``other`` is a failure, so ``plausible_followup``
with ``genuine: false``, or a failure label with ``genuine: true``, is a verdict at odds with
itself. A tiny local judge writes many of them; the quickstart's summary counts them and
does not show a genuine rate built on them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from uta_tasks.runs import Run, RunFiles
from uta_tasks.schema import output
from uta_tasks.schema.labels import FREE_LABELS, GENUINE_LABELS
from uta_tasks.schema.probe import VERDICT, VERDICT_REF
from uta_tasks.schema.verdict import Verdict

# The verdict slots of a record and the rate each one feeds.
SLOTS = {VERDICT: output.GENUINE, VERDICT_REF: output.GENUINE_BASE}


@dataclass
class SlotCheck:
    """Judged verdicts of one slot of one task, and how many contradict themselves."""

    judged: int = 0
    contradictory: int = 0


def contradicts(verdict: Verdict | None) -> bool:
    """Whether a judged verdict's label and genuine decision disagree (``other`` never does).

    Args:
        verdict: a verdict of a probe record.
    """
    if verdict is None or not verdict.judged or verdict.label in FREE_LABELS:
        return False
    return (verdict.label in GENUINE_LABELS) != bool(verdict.genuine)


def check_run(run: Path | RunFiles | Run) -> dict[str, dict[str, SlotCheck]]:
    """Count judged and self-contradictory verdicts in the samples lm-eval logged beside
    a results file (same run date).

    Args:
        run: lm-eval's ``results_<date>.json``, the run's files, or the run read with every doc
            (``load_run(..., all_docs=True)``: the quickstart reads its run once).

    Returns:
        task -> slot (``verdict``, ``verdict_ref``) -> counts.
    """
    from uta_tasks.runs import find_runs, load_run

    if not isinstance(run, Run):
        run = load_run(run if isinstance(run, RunFiles) else find_runs(run)[0], all_docs=True)
    checks: dict[str, dict[str, SlotCheck]] = {}
    for name, task in run.tasks.items():
        if not task.is_uta or task.docs is None:
            continue
        slots = checks.setdefault(name, {slot: SlotCheck() for slot in SLOTS})
        for doc in task.docs:
            for record in doc.records:
                for slot, check in slots.items():
                    verdict = record.verdicts()[slot]
                    if verdict is not None and verdict.judged:
                        check.judged += 1
                        check.contradictory += contradicts(verdict)
    return checks


def contradiction_note(checks: Mapping[str, Mapping[str, SlotCheck]]) -> str | None:
    """One paragraph on the self-contradictory verdicts of a run, or None when there are none.

    Args:
        checks: :func:`check_run`'s result.
    """
    bad = sum(c.contradictory for slots in checks.values() for c in slots.values())
    if not bad:
        return None
    judged = sum(c.judged for slots in checks.values() for c in slots.values())
    return (
        f"{bad} of {judged} verdicts contradict themselves (plausible_followup with genuine=false, or a failure "
        "label with genuine=true); a genuine rate built on them is shown as '-'. Each verdict is in the "
        "samples files."
    )
