"""Flag gate decisions whose margin is smaller than the judge's own spread (``--retest``).

A rule's margin is its candidate-minus-baseline difference (a regression) or its value minus
the bound (a bound). When a judge test-retest (``uta-rejudge --retest``) measured a spread of
the follow-up rate larger than that margin on the rule's tasks, the decision could be the
judge's noise alone: the rule keeps its status and gets a ``judge_noise`` note.
"""

from __future__ import annotations

from typing import Any

from uta_tasks.apps.gate.evaluate import ERROR, RuleResult
from uta_tasks.apps.gate.side import Side


def flag_judge_noise(results: list[RuleResult], retest: dict[str, Any], cand: Side) -> None:
    """Set ``judge_noise`` on every result whose margin is below the judge's spread.

    Args:
        results: the gate's results (changed in place).
        retest: task -> retest measures (:func:`uta_tasks.runs.retest_file.read_retest`).
        cand: the candidate run (for a group's member tasks).
    """
    from uta_tasks.runs.retest_file import spread_of

    for result in results:
        if result.status == ERROR or result.value is None:
            continue
        rule = result.rule
        margin = result.value if rule.is_regression else result.value - float(rule.value or 0.0)
        spread = spread_of(retest, cand.members(rule.task))
        if spread is not None and abs(margin) < spread:
            what = "difference" if rule.is_regression else "distance to the bound"
            result.judge_noise = (
                f"within judge noise: the {what} {abs(margin):.3f} is smaller than the judge's own spread "
                f"{spread:.3f} across retest repeats"
            )
