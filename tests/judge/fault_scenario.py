"""One judge run against the fault double with every fault kind injected, then a rerun
against the healthy double, and the figures that say whether anything was lost, wrongly
cached or leaked. Used by ``perf/judge_fault_figures.py`` (prints the table) and by
``test_judge_fault_figures.py`` (asserts it).

The run: 42 items (40 distinct) with an API key that is really sent (its variable is
named), preflight first, and these faults: HTTP 429 with ``Retry-After``, 500, 503 after
an invalid reply, hangs past the timeout, malformed HTTP-200 bodies (not JSON, HTML,
``{}``, ``choices`` as an object, no ``message``, unreadable usage), schema-invalid and
non-JSON verdicts, ``finish_reason=length``, connections reset mid-request, a 401 that
echoes the key, and a cache locked by another connection (from the 30th chat request
on, once the paid invalid reply is stored). A judge URL carrying a password is tried
too (it must be refused).
"""

from __future__ import annotations

import io
import json
import logging
import os
import sqlite3
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fault_server import MODEL, FaultConfig, FaultServer, expected_verdict
from sample_items import make_items

from uta_tasks.judge import (
    JudgeConfigError,
    JudgeItem,
    JudgeRun,
    JudgeSettings,
    enforce_unjudged_share,
    format_summary,
    judge_all,
    preflight,
)
from uta_tasks.judge import cache as cache_module
from uta_tasks.judge.cache import cache_key
from uta_tasks.schema.reasons import CACHEABLE_UNJUDGED

SECRET = "sk-test-FIGURES-KEY-3c9e71d04a"
PASSWORD = "Figures-Pw-5ad2e8"
LOCK_AT_REQUEST = 30
# item index -> (fault kind, how many requests get it; None = every request)
PLAN: dict[int, tuple[str, int | None]] = {
    0: ("schema", None),  # first, so its paid invalid reply is cached before the lock
    1: ("429", 1), 2: ("429", None), 15: ("429", 1),
    3: ("500", 1), 4: ("500", 2), 5: ("500", None),
    6: ("hang", 1), 7: ("hang", None),
    8: ("badbody", 1), 9: ("html", 1), 10: ("empty_object", None), 11: ("choices_object", 1),
    12: ("no_message", None), 13: ("usage_na", None),
    14: ("schema", 1), 16: ("malformed", 2),
    17: ("length", None),
    18: ("reset", 1), 19: ("reset", 2), 20: ("reset", None),
    22: ("401", None),
}
# Seconds of rate-limit waits per item: with Retry-After 1, two 429s are free retries, then
# 429s count as failures (the persistent 429 of item 2 is answered 2 + 3 times).
RATE_LIMIT_WAIT = 2
# faults served per kind, fixed by the plan (3 attempts per item; 401 and length at T=0 are not retried)
EXPECTED_FAULTS = {"429": 7, "500": 6, "503": 2, "hang": 4, "badbody": 1, "html": 1, "empty_object": 3,
                   "choices_object": 1, "no_message": 3, "usage_na": 1, "schema": 4, "malformed": 3,
                   "length": 1, "reset": 6, "401": 1}
# unjudged reasons of the persistent faults
EXPECTED_UNJUDGED = {"invalid_reply": 1, "rate_limited": 1, "http_5xx": 2, "timeout": 1, "unreadable_reply": 2,
                     "length": 1, "connection": 1, "http_4xx": 1}
SEQUENCES = {21: ["malformed", "503", "503"]}
KIND_ROWS = (
    ("429 with Retry-After", ("429",)),
    ("500", ("500",)),
    ("503 (after an invalid reply)", ("503",)),
    ("hang past the timeout", ("hang",)),
    ("malformed 200 body (not JSON, HTML, {}, choices object, no message, odd usage)",
     ("badbody", "html", "empty_object", "choices_object", "no_message", "usage_na")),
    ("schema-invalid or non-JSON verdict", ("schema", "malformed")),
    ("finish_reason=length", ("length",)),
    ("connection reset mid-request", ("reset",)),
    ("401 echoing the key", ("401",)),
)


@dataclass
class Figures:
    """What the scenario measured (see the module docstring)."""

    faults: dict[str, int]
    cache_lock_refused_writes: int
    items: int
    distinct: int
    first_calls: int
    first_summary: str
    first_unjudged_by_reason: dict[str, int]
    not_persisted: int
    verdicts_lost: int
    wrongly_judged: int
    wrongly_cached: int
    missing_after_first: int
    rerun_calls: int
    rerun_requests_seen: int
    rerun_unjudged: int
    rerun_summary: str
    key_sent: bool
    password_url_refused: bool
    share_check_passed: bool
    secret_occurrences: dict[str, int] = field(default_factory=dict)

    def table(self) -> str:
        """The figures as a Markdown table."""
        rows = [("figure", "value", "where it must stand"), ("---", "---", "---")]
        for label, kinds in KIND_ROWS:
            rows.append((f"faults injected: {label}", str(sum(self.faults.get(k, 0) for k in kinds)), "> 0"))
        lock_label = (f"faults injected: cache locked from chat request {LOCK_AT_REQUEST} on (verdicts "
                      "whose write was refused, or skipped after the first refusal)")
        rows.append((lock_label, str(self.cache_lock_refused_writes), "> 0"))
        rows += [
            ("items (distinct)", f"{self.items} ({self.distinct})", ""),
            ("first run: calls", str(self.first_calls), ""),
            ("first run: unjudged by reason", json.dumps(self.first_unjudged_by_reason), ""),
            ("first run: verdicts not persisted (reported)", str(self.not_persisted), "reported, > 0"),
            ("verdicts lost", str(self.verdicts_lost), "0"),
            ("judged verdicts that differ from the double's", str(self.wrongly_judged), "0"),
            ("verdicts wrongly cached", str(self.wrongly_cached), "0"),
            ("distinct items without a cached verdict after the first run", str(self.missing_after_first), ""),
            ("rerun: calls made", f"{self.rerun_calls} (server saw {self.rerun_requests_seen})",
             f"exactly {self.missing_after_first}"),
            ("rerun: unjudged (a paid invalid reply, reused from the cache)", str(self.rerun_unjudged), ""),
            ("key really sent to the endpoint", str(self.key_sent), "True"),
            ("URL with a password refused", str(self.password_url_refused), "True"),
            ("unjudged share check (limit 0.5) passed", str(self.share_check_passed), "True"),
        ]
        for where, count in self.secret_occurrences.items():
            rows.append((f"occurrences of the key or URL password: {where}", str(count), "0"))
        return "\n".join("| " + " | ".join(row) + " |" for row in rows)


class _CacheLock:
    """Another connection that takes an exclusive lock on the cache from chat request
    ``at`` on, once the paid invalid reply is cached (so the scenario shows both)."""

    def __init__(self, path: Path, at: int) -> None:
        self.path, self.at = path, at
        self._conn: sqlite3.Connection | None = None
        self._mutex = threading.Lock()

    def on_chat(self, count: int) -> None:
        with self._mutex:
            if count >= self.at and self._conn is None and self._invalid_reply_cached():
                self._conn = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
                self._conn.execute("BEGIN EXCLUSIVE")

    def _invalid_reply_cached(self) -> bool:
        with sqlite3.connect(self.path, timeout=10) as conn:
            pattern = '%"reason_code": "invalid_reply"%'
            row = conn.execute("SELECT 1 FROM verdicts WHERE verdict LIKE ? LIMIT 1", (pattern,)).fetchone()
            return row is not None

    def release(self) -> None:
        with self._mutex:
            if self._conn is not None:
                self._conn.execute("ROLLBACK")
                self._conn.close()


def _items() -> list[JudgeItem]:
    distinct = make_items(40, prefix="figures")
    return distinct + [distinct[23], distinct[0]]


def _key(settings: JudgeSettings, run: JudgeRun, index: int, item: JudgeItem) -> str:
    verdict = run.verdicts[index]
    return cache_key(settings.model, verdict.prompt_version, verdict.prompt_sha, settings.temperature,
                     settings.reasoning_effort, item.fingerprint(), namespace=settings.cache_namespace)


def _matches(verdict: Any, item: JudgeItem) -> bool:
    expected = expected_verdict(item.user_turn)
    return (verdict.label, verdict.genuine, verdict.rationale) == (
        expected["label"], expected["genuine"], expected["rationale"])


def _cache_rows(path: Path) -> dict[str, dict[str, Any]]:
    with sqlite3.connect(path) as conn:
        return {key: json.loads(text) for key, text in conn.execute("SELECT key, verdict FROM verdicts")}


def _wrongly_cached(rows: dict[str, dict[str, Any]], by_key: dict[str, JudgeItem]) -> int:
    wrong = 0
    for key, stored in rows.items():
        item = by_key.get(key)
        if item is None:
            wrong += 1
        elif stored["status"] == "judged":
            expected = expected_verdict(item.user_turn)
            wrong += (stored["label"], stored["genuine"], stored["rationale"]) != (
                expected["label"], expected["genuine"], expected["rationale"])
        else:
            wrong += stored.get("reason_code") not in CACHEABLE_UNJUDGED
    return wrong


def run_scenario(workdir: Path) -> Figures:
    """Run the scenario in ``workdir`` (the cache goes there) and return its figures.

    Args:
        workdir: An empty directory.
    """
    saved_env = {name: os.environ.get(name) for name in ("OPENAI_API_KEY",)}
    saved_busy = cache_module._BUSY_TIMEOUT_S
    log_text = io.StringIO()
    handler = logging.StreamHandler(log_text)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    saved_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    os.environ["OPENAI_API_KEY"] = SECRET
    cache_module._BUSY_TIMEOUT_S = 0.2  # a real lock would make each write wait 60 s before failing
    try:
        with FaultServer(FaultConfig()) as server:
            return _scenario(workdir, server, log_text)
    finally:
        root.removeHandler(handler)
        root.setLevel(saved_level)
        cache_module._BUSY_TIMEOUT_S = saved_busy
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _scenario(workdir: Path, server: FaultServer, log_text: io.StringIO) -> Figures:
    cache_path = workdir / "judge.sqlite"
    metadata = {
        "judge_base_url": server.base_url, "judge_model": MODEL, "judge_cache": str(cache_path),
        "judge_api_key_env": "OPENAI_API_KEY", "judge_concurrency": 4, "judge_timeout": 0.5,
        "judge_max_retries": 2, "judge_backoff_base": 0.01, "judge_backoff_max": 0.05,
        "judge_max_tokens": 256, "judge_concurrency_max": 4, "judge_rate_limit_wait": RATE_LIMIT_WAIT,
    }
    errors: list[str] = []
    port = server.base_url.split(":")[2].split("/")[0]
    refusals = 0
    for bad_url in (f"http://judge:{PASSWORD}@127.0.0.1:{port}/v1", f"http://127.0.0.1:{port}/v1?token={PASSWORD}"):
        try:
            JudgeSettings.from_metadata({**metadata, "judge_base_url": bad_url})
        except JudgeConfigError as exc:
            refusals += 1
            errors.append(str(exc))
    settings = JudgeSettings.from_metadata(metadata)
    preflight(settings)

    items = _items()
    config = server.config
    # a hang answers only after the run: a reply sent 1 s later reached a client starved of
    # the CPU on a loaded machine before its 0.5 s timeout fired, and the item was judged
    config.retry_after, config.hang_seconds = "1", 60.0
    config.faults = {items[i].user_turn: fault for i, fault in PLAN.items()}
    config.sequences = {items[i].user_turn: steps for i, steps in SEQUENCES.items()}
    lock = _CacheLock(cache_path, LOCK_AT_REQUEST)
    config.on_chat = lock.on_chat
    server.reset_counts()
    try:
        first = judge_all(items, settings)
    finally:
        lock.release()
    faults = dict(server.served)
    key_sent = any(r.authorization == f"Bearer {SECRET}" for r in server.chat_requests())
    share_ok = True
    try:
        enforce_unjudged_share(first, settings)
    except RuntimeError as exc:
        share_ok = False
        errors.append(str(exc))
    first_summary = first.summary()

    keys = [_key(settings, first, index, item) for index, item in enumerate(items)]
    by_key = dict(zip(keys, items))
    rows = _cache_rows(cache_path)
    persistable = {key for key, verdict in zip(keys, first.verdicts)
                   if verdict.judged or verdict.reason_code in CACHEABLE_UNJUDGED}
    unaccounted = len(persistable - set(rows)) - first.not_persisted
    wrongly_judged = sum(1 for v, item in zip(first.verdicts, items) if v.judged and not _matches(v, item))
    lost = (len(items) - len(first.verdicts)) + wrongly_judged + abs(unaccounted)
    wrongly_cached = _wrongly_cached(rows, by_key)
    missing = len(set(keys) - set(rows))

    config.faults, config.sequences, config.on_chat = {}, {}, None
    server.reset_counts()
    rerun = judge_all(items, settings)
    wrongly_judged += sum(1 for v, item in zip(rerun.verdicts, items) if v.judged and not _matches(v, item))
    wrongly_cached += _wrongly_cached(_cache_rows(cache_path), by_key)

    outputs = {
        "logs": log_text.getvalue(),
        "verdicts and usage": json.dumps([[v.to_dict() for v in run.verdicts] + [run.summary()]
                                          for run in (first, rerun)]),
        "summaries": format_summary(first_summary) + format_summary(rerun.summary()),
        "errors": "\n".join(errors),
        "cache files": b"".join(p.read_bytes() for p in workdir.glob("judge.sqlite*")).decode("latin-1"),
    }
    occurrences = {where: text.count(SECRET) + text.count(PASSWORD) for where, text in outputs.items()}
    refused_writes = first.not_persisted
    return Figures(
        faults=faults,
        cache_lock_refused_writes=refused_writes,
        items=len(items),
        distinct=first.unique_items,
        first_calls=first.calls,
        first_summary=format_summary(first_summary),
        first_unjudged_by_reason=first_summary["unjudged_by_reason"],
        not_persisted=first.not_persisted,
        verdicts_lost=lost,
        wrongly_judged=wrongly_judged,
        wrongly_cached=wrongly_cached,
        missing_after_first=missing,
        rerun_calls=rerun.calls,
        rerun_requests_seen=len(server.chat_requests()),
        rerun_unjudged=rerun.unjudged,
        rerun_summary=format_summary(rerun.summary()),
        key_sent=key_sent,
        password_url_refused=refusals == 2,
        share_check_passed=share_ok,
        secret_occurrences=occurrences,
    )


def kinds_counter(figures: Figures) -> Counter[str]:
    """Faults served per row label of the table.

    Args:
        figures: The scenario's figures.
    """
    return Counter({label: sum(figures.faults.get(k, 0) for k in kinds) for label, kinds in KIND_ROWS})
