"""The report's judge-trust tables: follow-up rates corrected for the judge's error
(``--calibration``), the judge's test-retest spread (``--retest``), and the perturbation
differences smaller than that spread (within the judge's own noise).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from uta_tasks.apps.report.tables import Table, rate_cell, temp_text
from uta_tasks.runs.collect import ReportData
from uta_tasks.runs.corrected import CORRECTED
from uta_tasks.schema import output
from uta_tasks.stats.display import percent

if TYPE_CHECKING:
    from uta_tasks.runs.calibration import CalibrationSet


def read_inputs(calibration: str | Path | None,
                retest: str | Path | None) -> tuple[CalibrationSet | None, dict[str, Any] | None]:
    """Read the calibration and retest files named on the command line.

    Args:
        calibration: the calibration file, or None.
        retest: the ``retest.json`` (or its folder), or None.
    """
    from uta_tasks.runs.calibration import read_calibration
    from uta_tasks.runs.retest_file import read_retest

    return (None if calibration is None else read_calibration(calibration),
            None if retest is None else read_retest(retest))


def corrected(data: ReportData) -> Table | None:
    """Judged and corrected follow-up rate per task row (needs ``--calibration``).

    Args:
        data: the report data.
    """
    if data.calibration is None:
        return None
    c = data.calibration
    table = Table(
        "corrected", "Follow-up rate corrected for judge error",
        f"Rogan-Gladen correction with the judge's sensitivity {percent(c['sensitivity'])}% and specificity "
        f"{percent(c['specificity'])}% measured on {c['items']} human-labelled items ({c['path']}); interval: "
        "bootstrap over the run's docs and the calibration items. Worth it near zero with a weak judge.",
        ["model", "T", "task", "judged %", "corrected %", "note"])
    for row in data.rows:
        entry = row.metrics.get(CORRECTED)
        if entry is None:
            continue
        table.rows.append([row.model, temp_text(row.temperature), row.task,
                           rate_cell(row.metrics.get(output.GENUINE)), rate_cell(entry), entry.extra.get("note") or ""])
    return table


def retest(data: ReportData) -> Table | None:
    """The judge's repeatability per task (needs ``--retest``).

    Args:
        data: the report data.
    """
    if data.retest is None:
        return None
    table = Table("retest", "Judge test-retest",
                  "The same turns judged again with the cache off: share whose genuine decision flipped, the "
                  "follow-up rate of each repeat, its spread (max - min) and Krippendorff's alpha of the repeats.",
                  ["task", "turns", "flipped %", "rates per repeat %", "spread (pp)", "alpha [95%]"])
    for task, r in sorted(data.retest.items()):
        a = r["alpha"]
        alpha = "undefined" if a["value"] is None else f"{a['value']:.3f}" + (
            f" [{a['ci'][0]:.3f}, {a['ci'][1]:.3f}]" if a["ci"] else "")
        table.rows.append([task, str(r["turns"]), percent(r["flip_share"]),
                           " / ".join(percent(x) for x in r["rates"]), percent(r["spread"]), alpha])
    return table


def within_noise(data: ReportData) -> Table | None:
    """Perturbation differences smaller than the judge's own spread on that task.

    Args:
        data: the report data.
    """
    if data.retest is None:
        return None
    from uta_tasks.runs.retest_file import spread_of

    table = Table("within-noise", "Differences within the judge's noise",
                  "Perturbed minus base follow-up rate where the difference is smaller than the judge's own "
                  "spread across retest repeats: the judge alone could produce it.",
                  ["model", "T", "task", "difference (pp)", "judge spread (pp)"])
    for row in data.rows:
        diff = row.metric(output.GENUINE_DIFF).value
        spread = spread_of(data.retest, [row.task])
        if diff is not None and spread is not None and abs(diff) < spread:
            table.rows.append([row.model, temp_text(row.temperature), row.task, percent(diff), percent(spread)])
    return table if table.rows else None


def judge_trust_tables(data: ReportData) -> list[Table]:
    """The judge-trust tables that have data.

    Args:
        data: the report data.
    """
    return [t for t in (corrected(data), retest(data), within_noise(data)) if t is not None]
