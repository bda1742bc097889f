"""Figures of the judge under faults: one run against the scripted fault double with
every fault kind injected (429 with Retry-After, 500, 503, hangs, malformed 200 bodies,
schema-invalid replies, finish_reason=length, connection resets, a 401 echoing the key,
a cache locked mid-run), then a rerun against the healthy double.

Prints a Markdown table: faults injected per kind, verdicts lost (must be 0), verdicts
wrongly cached (0), rerun calls (exactly the items still missing) and occurrences of the
API key or a URL password in every output, log and cache file (0). Exits 1 when a
figure is not where it must stand.

Run from the repository root::

    PYTHONPATH=$PWD python perf/judge_fault_figures.py

The scenario itself lives in ``tests/judge/fault_scenario.py`` (a fast test asserts it).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]


def problems(figures: Any) -> list[str]:
    """The figures that are not where they must stand.

    Args:
        figures: The scenario's :class:`fault_scenario.Figures`.
    """
    found = []
    if figures.verdicts_lost:
        found.append(f"verdicts lost: {figures.verdicts_lost}")
    if figures.wrongly_judged:
        found.append(f"judged verdicts that differ: {figures.wrongly_judged}")
    if figures.wrongly_cached:
        found.append(f"verdicts wrongly cached: {figures.wrongly_cached}")
    if not figures.rerun_calls == figures.rerun_requests_seen == figures.missing_after_first:
        found.append(f"rerun calls {figures.rerun_calls} != missing {figures.missing_after_first}")
    if any(figures.secret_occurrences.values()):
        found.append(f"secrets found: {figures.secret_occurrences}")
    if not (figures.key_sent and figures.password_url_refused and figures.share_check_passed):
        found.append("key not sent, password URL accepted, or share check failed")
    return found


def main() -> int:
    """Run the scenario once and print its table."""
    sys.path[:0] = [str(REPO_ROOT / "tests" / "judge"), str(REPO_ROOT)]
    from fault_scenario import run_scenario

    with tempfile.TemporaryDirectory(prefix="uta-judge-figures-") as workdir:
        start = time.monotonic()
        figures = run_scenario(Path(workdir))
        elapsed = time.monotonic() - start
    print(figures.table())
    print()
    print("first run:\n" + figures.first_summary)
    print("rerun:\n" + figures.rerun_summary)
    print(f"\n(scenario took {elapsed:.1f} s)")
    found = problems(figures)
    for problem in found:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
