"""Claims in a shared verdict cache (issue 44, item 6): what a run may judge, what it waits
for, and that a killed run's claims expire (the two-process test is tests/rejudge/test_shared_cache.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fault_server import FaultServer

from uta_tasks.judge import JudgeItem, JudgeSettings, judge_all
from uta_tasks.judge.cache import VerdictCache, cache_key
from uta_tasks.judge.prompt import load_template


def _reusable(stored: dict) -> bool:
    return stored.get("status") == "judged"


def test_a_claim_holds_until_its_verdict_its_release_or_its_lease_ends(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    with VerdictCache(path) as a, VerdictCache(path) as b:
        assert a.claim(["k1", "k2", "k3"], "run-a", 10, _reusable, now=0) == ({"k1", "k2", "k3"}, {})
        assert b.claim(["k1", "k2", "k3"], "run-b", 10, _reusable, now=5) == (set(), {})  # held by a live run
        a.put("k1", {"status": "judged", "judge_model": "m", "prompt_version": "v"})
        a.release("run-a", "k1")
        a.release("run-a", "k3")  # its call failed: not cached, free for another run
        granted, found = b.claim(["k1", "k2", "k3"], "run-b", 10, _reusable, now=6)
        assert (granted, set(found)) == ({"k3"}, {"k1"})
        a.renew("run-a", 10, now=9)  # a is alive: k2 is held until 19
        assert b.claim(["k2"], "run-b", 10, _reusable, now=15) == (set(), {})
        assert b.claim(["k2"], "run-b", 10, _reusable, now=20) == ({"k2"}, {})  # a stopped renewing
        assert a.claim(["k2"], "run-a", 10, _reusable, now=21) == (set(), {})
        b.release("run-b")
        assert a.claim(["k2", "k3"], "run-a", 10, _reusable, now=22) == ({"k2", "k3"}, {})


def test_a_run_waits_for_a_killed_runs_claims_to_expire_then_judges_them(
        fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
        items: Callable[..., list[JudgeItem]]) -> None:
    settings = fault_settings()
    batch = items(6)
    template = load_template(settings.prompt)
    keys = [cache_key(settings.model, template.version, template.sha, settings.temperature,
                      settings.reasoning_effort, item.fingerprint(), namespace=settings.cache_namespace)
            for item in batch]
    assert settings.cache is not None
    with VerdictCache(settings.cache) as cache:  # a run that claimed three items and was killed
        assert cache.claim(keys[:3], "killed-run", 1.0, _reusable)[0] == set(keys[:3])
    run = judge_all(batch, settings)
    assert all(verdict.judged for verdict in run.verdicts)
    assert run.calls == 6 and len([r for r in fault_server.chat_requests() if r.user_turn is not None]) == 6
    again = judge_all(batch, settings)
    assert again.calls == 0 and again.cache_hits == 6


def test_claims_of_a_process_of_this_machine_that_is_gone_are_taken_at_once(tmp_path: Path) -> None:
    import os
    import socket
    import subprocess
    import sys

    from uta_tasks.judge.claims import ItemClaims
    from uta_tasks.judge.persist import CacheWriter

    path = tmp_path / "cache.sqlite"
    with VerdictCache(path) as cache:
        child = subprocess.Popen([sys.executable, "-c", "pass"])
        child.wait()
        gone = f"{socket.gethostname()}:{child.pid}:dead"
        alive = f"{socket.gethostname()}:{os.getpid()}:other-run-of-this-process"
        cache.claim(["k1"], gone, 600, _reusable)
        cache.claim(["k2"], alive, 600, _reusable)
    writer = CacheWriter(str(path))
    try:
        claims = ItemClaims(writer, _reusable)
        assert claims.take(["k1", "k2"]) == ({"k1"}, {})  # the dead run's claim is dropped, the live one held
    finally:
        writer.close()
