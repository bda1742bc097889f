"""Judge many items: deduplicate, read the cache, judge the rest concurrently, write
each verdict to the cache as it arrives.

Nothing that goes wrong with one item reaches the caller: a failed or unreadable reply,
or even a bug while handling one item, makes that item unjudged with its reason and
leaves every other item alone. A cache that cannot be used costs only the cache (see
:mod:`.persist`).

:func:`judge_all` is synchronous: it runs the work on the judge's event loop, which
lives in a thread of its own for the whole process (:mod:`.transport`: one HTTP client
per endpoint for every judge run of the process), and blocks until it is done, whether
or not the calling thread runs a loop (a notebook, an async harness). Async callers can
await :func:`ajudge_all` instead.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from uta_tasks.schema import reasons

from . import prelabel, transport
from .cache import cache_key
from .claims import ItemClaims
from .client import CallOutcome, JudgeClient
from .concurrency import LimiterStats
from .persist import CacheWriter
from .prompt import PromptTemplate, load_template
from .records import ItemUsage, JudgeItem, JudgeRun, Verdict
from .redact import redact
from .settings import JudgeSettings

log = logging.getLogger(__name__)

DISABLED_REASON = "judging disabled (judge=none)"


def judge_all(items: Sequence[JudgeItem], settings: JudgeSettings) -> JudgeRun:
    """Judge every item (identical items once), using and filling the disk cache.

    Args:
        items: The traces to judge.
        settings: Judge settings (see :mod:`uta_tasks.judge`).

    Returns:
        A :class:`JudgeRun` whose verdicts align with ``items``.
    """
    return transport.run(_ajudge_all(items, settings))


async def ajudge_all(items: Sequence[JudgeItem], settings: JudgeSettings) -> JudgeRun:
    """The async form of :func:`judge_all` (the work runs on the judge's loop; the
    caller's loop stays free meanwhile).

    Args:
        items: The traces to judge.
        settings: Judge settings.
    """
    return await transport.arun(_ajudge_all(items, settings))


async def _ajudge_all(items: Sequence[JudgeItem], settings: JudgeSettings) -> JudgeRun:
    """:func:`ajudge_all` on the judge's loop.

    With ``judge_prelabel`` on (and the judge on), the items a deterministic rule labels
    (:mod:`.prelabel`) get that verdict and are neither sent nor looked up in the cache.

    Args:
        items: The traces to judge.
        settings: Judge settings.
    """
    items = list(items)
    if settings.enabled and settings.prelabel:
        split = prelabel.partition(items)
        if split.verdicts:
            rest = await _ajudge([items[index] for index in split.rest], settings)
            return prelabel.merge_run(split, items, rest)
    return await _ajudge(items, settings)


async def _ajudge(items: list[JudgeItem], settings: JudgeSettings) -> JudgeRun:
    template = load_template(settings.prompt)
    prompts: dict[str, list[dict[str, str]]] = {}
    first_index: dict[str, int] = {}
    keys: list[str] = []
    for index, item in enumerate(items):
        key = cache_key(
            settings.model, template.version, template.sha,
            settings.temperature, settings.reasoning_effort, item.fingerprint(),
            namespace=settings.cache_namespace,
        )
        keys.append(key)
        if key not in first_index:
            first_index[key] = index
            prompts[key] = template.render(item)
    run = JudgeRun(verdicts=[], unique_items=len(first_index))
    usage = {key: ItemUsage() for key in first_index}
    results: dict[str, Verdict] = {}
    if not settings.enabled:
        disabled = CallOutcome(reason=DISABLED_REASON, code=reasons.DISABLED)
        for key, prompt in prompts.items():
            results[key] = _unjudged(settings, template, prompt, disabled)
        return _assemble(run, keys, first_index, results, usage)

    cache = CacheWriter(settings.cache)
    try:
        for key, stored in cache.get_many(prompts).items():
            if _reusable(stored):  # other failures were cached by older versions: ask again
                results[key] = Verdict.from_dict({**stored, "cached": True})
                usage[key].cache_hit = True
        pending = [key for key in prompts if key not in results]
        if pending:
            stats = await _judge_pending(pending, prompts, settings, template, cache, results, usage)
            run.window_peak = int(stats.peak)
    finally:
        cache.close()
    run.cache_hits = sum(entry.cache_hit for entry in usage.values())
    run.not_persisted = cache.not_persisted
    run.calls = sum(entry.calls for entry in usage.values())
    run.rate_limited = sum(entry.rate_limited for entry in usage.values())
    run.input_tokens = sum(entry.input_tokens for entry in usage.values())
    run.output_tokens = sum(entry.output_tokens for entry in usage.values())
    return _assemble(run, keys, first_index, results, usage)


async def _judge_pending(
    pending: list[str],
    prompts: dict[str, list[dict[str, str]]],
    settings: JudgeSettings,
    template: PromptTemplate,
    cache: CacheWriter,
    results: dict[str, Verdict],
    usage: dict[str, ItemUsage],
) -> LimiterStats:
    claims = ItemClaims(cache, _reusable)  # one bill per item across runs sharing the cache
    mine, found = claims.take(pending)

    def from_cache(key: str, stored: dict[str, Any]) -> None:
        results[key] = Verdict.from_dict({**stored, "cached": True})
        usage[key].cache_hit = True

    for key, stored in found.items():
        from_cache(key, stored)
    waiting = [key for key in pending if key not in mine and key not in found]
    if waiting:
        log.info("judge: %d item(s) are being judged by another run sharing judge_cache=%r: waiting for their "
                 "verdicts (a claim of a stopped run expires after %.0f s)", len(waiting), settings.cache, claims.lease)
    secret = settings.api_key()
    client = JudgeClient(settings, transport.shared_endpoint(settings.base_url, secret, settings.timeout))

    async def one(key: str) -> None:
        try:
            await judge_one(key)
        finally:
            claims.done(key)

    async def judge_one(key: str) -> None:
        try:
            outcome = await client.judge(prompts[key], key)
        except Exception as exc:  # noqa: BLE001 - one item's failure must never cancel the others
            reason = redact(f"internal error while judging: {type(exc).__name__}: {exc}", secret)
            log.warning("judge item %s unjudged: %s", key[:12], reason)
            outcome = CallOutcome(reason=reason, code=reasons.INTERNAL)
        verdict = _verdict(settings, template, prompts[key], outcome)
        results[key] = verdict
        usage[key].calls = outcome.calls
        usage[key].rate_limited = outcome.rate_limited
        usage[key].input_tokens = outcome.input_tokens
        usage[key].output_tokens = outcome.output_tokens
        if cache.path is not None and (verdict.judged or verdict.reason_code in reasons.CACHEABLE_UNJUDGED):
            # A paid reply that stayed invalid is cached too, so a rerun does not pay again;
            # outages, truncation and unreadable bodies are retried by the next run.
            cache.put(key, verdict.to_dict())

    keeper = asyncio.create_task(claims.keep_alive())
    try:
        await asyncio.gather(*(one(key) for key in pending if key in mine), claims.wait_for(waiting, from_cache, one))
    finally:
        keeper.cancel()
        claims.close()
        await client.close()
    if client.params.adjustments:
        log.warning("judge run adjusted request parameters: %s", client.params.adjustments)
    stats = client.limit.stats
    log.info("judge window: start %d, peak %d, cap %d; %d overload answer(s), %d cut(s)",
             settings.concurrency, int(stats.peak), int(client.limit.cap), stats.overloads, stats.decreases)
    return stats


def _reusable(stored: dict[str, Any]) -> bool:
    """A cached verdict answers its item: judged, or an unjudged reply that was paid for."""
    verdict = Verdict.from_dict({**stored, "cached": True})
    return verdict.judged or verdict.reason_code in reasons.CACHEABLE_UNJUDGED


def _verdict(
    settings: JudgeSettings, template: PromptTemplate, prompt: list[dict[str, str]], outcome: CallOutcome
) -> Verdict:
    if outcome.parsed is None:
        return _unjudged(settings, template, prompt, outcome)
    return Verdict.judged_as(
        outcome.parsed.label, outcome.parsed.genuine, rationale=outcome.parsed.rationale, prompt=prompt,
        judge_model=settings.model, prompt_version=template.version, prompt_sha=template.sha,
        raw_reply=outcome.raw_reply, attempts=outcome.calls, reply_model=outcome.reply_model,
        system_fingerprint=outcome.system_fingerprint,
    )


def _unjudged(
    settings: JudgeSettings, template: PromptTemplate, prompt: list[dict[str, str]], outcome: CallOutcome
) -> Verdict:
    return Verdict.unjudged_because(
        outcome.reason or "no reply", outcome.code or reasons.INTERNAL, prompt=prompt, judge_model=settings.model,
        prompt_version=template.version, prompt_sha=template.sha, raw_reply=outcome.raw_reply,
        attempts=outcome.calls, reply_model=outcome.reply_model, system_fingerprint=outcome.system_fingerprint,
    )


def _assemble(
    run: JudgeRun,
    keys: list[str],
    first_index: dict[str, int],
    results: dict[str, Verdict],
    usage: dict[str, ItemUsage],
) -> JudgeRun:
    for index, key in enumerate(keys):
        first = first_index[key]
        verdict = results[key]
        if index == first:
            run.verdicts.append(verdict)
            run.per_item_usage.append(usage[key])
        else:
            run.verdicts.append(Verdict.from_dict(verdict.to_dict()))
            # the cost and the cache hit belong to the first occurrence only
            run.per_item_usage.append(ItemUsage(duplicate_of=first))
    return run
