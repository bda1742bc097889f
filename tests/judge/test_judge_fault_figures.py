"""The fault figures of the issue, from one run against the fault double with every fault
kind injected and a rerun against the healthy double (see ``fault_scenario.py``; the
same scenario prints its table with ``perf/judge_fault_figures.py``)."""

from __future__ import annotations

from pathlib import Path

from fault_scenario import EXPECTED_FAULTS, EXPECTED_UNJUDGED, run_scenario


def test_fault_figures(tmp_path: Path) -> None:
    figures = run_scenario(tmp_path)
    # every kind was really injected, at most as often as planned (a loaded machine can
    # answer one planned fault's retry later than the scenario's short timeouts expect)
    assert set(figures.faults) == set(EXPECTED_FAULTS), figures.faults
    assert all(1 <= figures.faults[k] <= n for k, n in EXPECTED_FAULTS.items()), figures.faults
    assert figures.cache_lock_refused_writes > 0 and figures.not_persisted > 0
    assert figures.verdicts_lost == 0
    assert figures.wrongly_judged == 0
    assert figures.wrongly_cached == 0
    assert figures.missing_after_first > 0
    assert figures.rerun_calls == figures.rerun_requests_seen == figures.missing_after_first
    for reason, count in EXPECTED_UNJUDGED.items():  # a slow machine may add timeouts, never fewer
        assert figures.first_unjudged_by_reason.get(reason, 0) >= count, reason
    assert figures.rerun_unjudged == 2  # the paid invalid reply (an item and its duplicate), from the cache
    assert figures.key_sent and figures.password_url_refused and figures.share_check_passed
    assert set(figures.secret_occurrences) == {"logs", "verdicts and usage", "summaries", "errors", "cache files"}
    assert all(count == 0 for count in figures.secret_occurrences.values()), figures.secret_occurrences
