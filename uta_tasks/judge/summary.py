"""What a judge run did, in one dict and a few lines, and the ceiling on unjudged items.

A run where every judge call failed used to finish with NaN rates and exit 0. The
caller (the task) logs :func:`format_summary` at the end of a run and then calls
:func:`enforce_unjudged_share`, which raises :class:`JudgeUnjudgedError` when the share
of unjudged items is above ``judge_max_unjudged_share``. By then
:func:`~uta_tasks.judge.judge_all` has already written every verdict it could to the
cache, so the rerun after fixing the cause pays only for what is missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from uta_tasks.schema.verdict import JUDGED, UNJUDGED

from .errors import JudgeUnjudgedError

if TYPE_CHECKING:
    from .records import JudgeRun
    from .settings import JudgeSettings


def format_summary(summary: dict[str, Any]) -> str:
    """Human lines for the end of a run: totals, then one line per unjudged reason, then
    the verdicts the cache did not keep (when any).

    Args:
        summary: :meth:`JudgeRun.summary`.

    Returns:
        Lines joined by newlines (no trailing newline).
    """
    totals = (
        f"judge: {summary['items']} items ({summary['unique_items']} distinct): {summary[JUDGED]} judged, "
        f"{summary[UNJUDGED]} unjudged; {summary['calls']} calls, {summary['cache_hits']} cache hits, "
        f"{summary['input_tokens']} input + {summary['output_tokens']} output tokens"
    )
    lines = [totals]
    for reason, count in summary["unjudged_by_reason"].items():
        lines.append(f"judge: unjudged {count} ({reason})")
    if summary.get("prelabelled"):
        lines.append(f"judge: {summary['prelabelled']} distinct item(s) pre-labelled by rules (judge calls saved)")
    if summary.get("rate_limited"):
        lines.append(f"judge: {summary['rate_limited']} rate-limited answer(s) (429, or 503 with Retry-After)")
    if summary["not_persisted"]:
        lines.append(f"judge: {summary['not_persisted']} verdict(s) not persisted to the cache (a rerun pays again)")
    return "\n".join(lines)


def enforce_unjudged_share(run: JudgeRun, settings: JudgeSettings) -> None:
    """Fail the run when too many of its items are unjudged.

    Call it after :func:`~uta_tasks.judge.judge_all` returned (every verdict is cached by
    then). Runs with ``judge=none`` or without items always pass.

    Args:
        run: The finished run.
        settings: Its settings (``judge_max_unjudged_share``).

    Raises:
        JudgeUnjudgedError: The unjudged share is above the setting.
    """
    total = len(run.verdicts)
    if not settings.enabled or total == 0:
        return
    summary = run.summary()
    share = summary[UNJUDGED] / total
    if share <= settings.max_unjudged_share:
        return
    reasons = ", ".join(f"{reason} {count}" for reason, count in summary["unjudged_by_reason"].items())
    where = f"judge_cache={settings.cache!r}" if settings.cache else "no cache (judge_cache=none)"
    raise JudgeUnjudgedError(
        f"judge: {summary[UNJUDGED]} of {total} items ({share:.0%}) are unjudged ({reasons}), above "
        f"judge_max_unjudged_share={settings.max_unjudged_share:g}. The verdicts obtained are saved in {where}; "
        "fix the cause (see the reasons in the log) and rerun, which pays only for the missing items, "
        "or raise judge_max_unjudged_share."
    )
