"""perf/probe_from_samples.py's ``checks``: it times what ``uta-eval`` does with
``answers_from`` before the model loads, so the saved run must reach
``cli.check_saved_requests`` as lm-eval's ``simple_evaluate`` hands it over (its metadata
included), and the model's tokenizer must be loaded for the pass-1 checks (no timing)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from uta_tasks.probe import saved_precheck

_PATH = Path(__file__).resolve().parents[2] / "perf" / "probe_from_samples.py"
_SPEC = importlib.util.spec_from_file_location("uta_perf_probe_from_samples", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
probe_from_samples = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(probe_from_samples)


def test_the_checks_reach_the_saved_run_and_load_the_tokenizer(monkeypatch) -> None:
    checked: list[int] = []
    real_check = saved_precheck.check

    def counting(requests, *args, **kwargs):
        checked.append(len(requests))
        return real_check(requests, *args, **kwargs)

    monkeypatch.setattr(saved_precheck, "check", counting)
    tokenizer_of = saved_precheck.tokenizer_of
    found = probe_from_samples.checks(docs=2, rounds=1)
    assert checked == [2]  # both saved documents went through the pass-1 checks
    assert found["tokenizer"] > 0 and found["checks"] > 0 and found["start"] > 0
    assert saved_precheck.tokenizer_of is tokenizer_of  # the timing wrapper was taken off again
