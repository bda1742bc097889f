"""The agreement table as text: one row per comparison with n and the first source's
genuine prevalence, then, chance-corrected numbers first, Cohen's kappa, sensitivity and
specificity (the second source against the first) and percent agreement on the binary
genuine decision, then kappa and percent agreement on the primary label; each with its
bootstrap 95% interval. Raw agreement comes last because it means little at a low
prevalence (at 2% genuine, a rater who never says genuine agrees 98%). Confusion matrices
follow (rows: first source, columns: second).
"""

from __future__ import annotations

from collections.abc import Sequence

from .compare import Comparison
from .stats import Measure

_ABBREVIATIONS = {
    "plausible_followup": "plaus",
    "previous_turn_restate": "prev",
    "assistant_turn_restate": "asst",
    "new_task_prompt": "new",
    "meta_planning": "meta",
    "degenerate_short": "short",
    "malformed_artifact": "malf",
    "other": "other",
    "genuine": "gen",
    "not genuine": "not",
}


def render_table(rows: Sequence[Comparison], replicates: int, seed: int, confusion: bool = True) -> str:
    """The text table.

    Args:
        rows: Comparisons.
        replicates: Bootstrap resamples (for the caption).
        seed: Bootstrap seed (for the caption).
        confusion: Append the confusion matrices.
    """
    head = ["Comparison", "n", "prev. %", "Cohen's kappa", "Sens. %", "Spec. %", "Agree. (%)", "Cohen's kappa",
            "Agree. (%)"]
    body = []
    for row in rows:
        if row.genuine is None or row.label is None:
            body.append([f"{row.a} vs {row.b}", "0", "no common items", *[""] * 6])
            continue
        body.append([
            f"{row.a} vs {row.b}", str(row.n), _share(row.prevalence),
            _kappa(row.genuine), _share(row.sensitivity), _share(row.specificity), _pct(row.genuine),
            _kappa(row.label), _pct(row.label),
        ])
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    genuine_span = sum(widths[3:7]) + 6
    label_span = widths[7] + widths[8] + 2
    lines = [
        f"Agreement between label sources (95% bootstrap intervals, {replicates} resamples, seed {seed}); "
        "chance-corrected first, sensitivity and specificity of the second source against the first",
        "",
        (" " * (sum(widths[:3]) + 6) + "Genuine follow-up".center(genuine_span) + "  "
         + "Primary label".center(label_span)).rstrip(),
        _line(head, widths),
        _line(["-" * w for w in widths], widths),
        *(_line(r, widths) for r in body),
    ]
    notes = [f"- {row.a} vs {row.b}: {reason}" for row in rows for reason in _notes(row)]
    if notes:
        lines += ["", *notes]
    if confusion:
        for row in rows:
            if row.genuine is None or row.label is None:
                continue
            lines += ["", f"Confusion, {row.a} (rows) vs {row.b} (columns), genuine:", _matrix(row.genuine)]
            lines += ["", f"Confusion, {row.a} (rows) vs {row.b} (columns), primary label:", _matrix(row.label)]
    return "\n".join(lines) + "\n"


def _line(cells: Sequence[str], widths: Sequence[int]) -> str:
    first = cells[0].ljust(widths[0])
    pairs = enumerate(zip(cells[1:], widths[1:], strict=True))
    rest = [cell.rjust(width) if i < 2 else cell.ljust(width) for i, (cell, width) in pairs]
    return "  ".join([first, *rest]).rstrip()


def _share(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def _pct(m: Measure) -> str:
    low, high = m.agreement_ci
    return f"{m.agreement:.1f} [{low:.1f}, {high:.1f}]"


def _kappa(m: Measure) -> str:
    if m.kappa is None:
        return "undefined"
    if m.kappa_ci is None:
        return f"{m.kappa:.3f} [-]"
    return f"{m.kappa:.3f} [{m.kappa_ci[0]:.3f}, {m.kappa_ci[1]:.3f}]"


def _notes(row: Comparison) -> list[str]:
    if row.error:
        return [row.error]
    notes = []
    for what, m in (("genuine", row.genuine), ("label", row.label)):
        if m is not None and m.kappa_reason:
            notes.append(f"{what}: {m.kappa_reason}")
    if row.only_a or row.only_b:
        notes.append(f"not compared: {row.only_a} item(s) only in {row.a}, {row.only_b} only in {row.b}")
    return notes


def _matrix(m: Measure) -> str:
    names = [_ABBREVIATIONS.get(c, c) for c in m.categories]
    width = max(6, *(len(n) for n in names), *(len(str(v)) for r in m.confusion for v in r))
    lines = [" " * width + "  " + "  ".join(n.rjust(width) for n in names)]
    for name, counts in zip(names, m.confusion, strict=True):
        lines.append(name.ljust(width) + "  " + "  ".join(str(v).rjust(width) for v in counts))
    shown = [(full, short) for full, short in _ABBREVIATIONS.items() if full in m.categories and short != full]
    legend = ", ".join(f"{short}={full}" for full, short in shown)
    return "\n".join(lines + ([f"({legend})"] if legend else []))
