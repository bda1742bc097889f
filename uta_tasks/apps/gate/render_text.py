"""The gate's console table: one line per rule with value, interval, bound and verdict."""

from __future__ import annotations

from uta_tasks.apps.gate.api import GateResult
from uta_tasks.stats.display import interval, number
from uta_tasks.templates.escape import display_text

HEADERS = ("rule", "value", "interval", "bound", "n", "verdict")


def rows(result: GateResult) -> list[tuple[str, ...]]:
    """Table rows (strings), one per rule.

    Args:
        result: the gate's result.
    """
    out: list[tuple[str, ...]] = []
    for r in result.results:
        iv = r.interval
        out.append((
            r.rule.name,
            number(r.value),
            interval(iv.low, iv.high) if iv else "—",
            r.rule.bound_text,
            "—" if r.n is None else str(r.n),
            r.status.upper(),
        ))
    return out


def render_text(result: GateResult) -> str:
    """The table, followed by the causes of failures and errors and the overall verdict.

    Args:
        result: the gate's result.
    """
    body = rows(result)
    widths = [max(len(h), *(len(row[i]) for row in body)) for i, h in enumerate(HEADERS)]
    line = "  ".join(h.ljust(w) for h, w in zip(HEADERS, widths))
    lines = [line, "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in body]
    notes = [f"- {r.rule.name}: {r.status.upper()}: {r.note}" for r in result.results if r.status != "pass" or r.uncertain]
    notes += [f"- {r.rule.name}: {r.judge_noise}" for r in result.results if r.judge_noise]
    if notes:
        lines += ["", *notes]
    c = result.counts()
    mode = "strict (point estimates)" if result.settings.strict else f"{result.settings.confidence:.0%} intervals"
    counts = f"{c['pass']} passed, {c['fail']} failed, {c['error']} undecided"
    lines += ["", f"gate {result.verdict.upper()} (exit {result.exit_code}): {counts}; {mode}"]
    return display_text("\n".join(lines) + "\n")  # no terminal escape or bidi override from a name
