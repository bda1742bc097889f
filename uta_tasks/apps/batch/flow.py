"""Judge items through the OpenAI Batch API (half price), resumably.

:func:`judge_batch` runs these steps, each safe to interrupt:

1. Deduplicate the items and compute their verdict cache keys exactly like
   :func:`uta_tasks.judge.judge_all`; items already in the cache are done.
2. Resume earlier batches recorded in the cache file (:mod:`.store`): chunks whose batch
   id was never recorded are looked up by metadata before anything is created.
3. Submit every item that is neither cached nor in a batch yet, split into input files
   at the limits, and print the batch ids and a token estimate.
4. Poll (``batches.retrieve``, progress on stderr) until every batch is terminal or
   ``max_wait`` passes; download the output and error files of each finished batch,
   validate every reply and write the verdicts to the cache at once.
5. Requests of expired, failed or cancelled batches, replies that are not valid
   verdicts, and requests too large for one batch file go to live calls through
   :func:`uta_tasks.judge.judge_all` (same cache), or stay unjudged with their reason
   when ``fallback`` is off.

With ``judge_prelabel`` on, the items a pre-label rule labels (:mod:`..prelabel`) are never
submitted. A request is never put into two batches. Parameters a model rejects cannot be adjusted
inside a batch (live calls drop them, see :mod:`uta_tasks.judge.params`): such requests
come back as errors and take the fallback.
"""

from __future__ import annotations

import hashlib
import logging
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TextIO

from uta_tasks.judge import prelabel
from uta_tasks.judge.cache import VerdictCache, cache_key
from uta_tasks.judge.errors import JudgeConfigError
from uta_tasks.judge.params import RequestParams
from uta_tasks.judge.preflight import preflight
from uta_tasks.judge.prompt import PromptTemplate, load_template
from uta_tasks.judge.records import JudgeItem, JudgeRun, Verdict
from uta_tasks.judge.runner import judge_all
from uta_tasks.judge.settings import JudgeSettings
from uta_tasks.schema.reasons import code_from_reason

from .collect import TERMINAL, collect
from .lock import exclusive
from .progress import Progress
from .remote import BatchAPI
from .requests import MAX_BYTES, MAX_REQUESTS, RequestLine, encode_request, estimate_tokens, iter_chunks
from .store import REQ_FAILED, REQ_SUBMITTED, SUBMITTED, UPLOADED, BatchStore, ChunkRow

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BatchOptions:
    """How a batch run behaves.

    Attributes:
        max_requests: Requests per batch input file at most (API limit 50,000).
        max_bytes: Bytes per batch input file at most (API limit 200 MB).
        wait: Poll until the batches finish; False submits (and collects what is
            already finished) and returns.
        poll_interval: Seconds between polls.
        max_wait: Seconds of polling at most; batches still running are collected by a rerun.
        fallback: Judge failed requests with live calls; False leaves them unjudged.
        progress: Stream for the progress line and messages (None: sys.stderr).
        quiet: Write nothing.
    """

    max_requests: int = MAX_REQUESTS
    max_bytes: int = MAX_BYTES
    wait: bool = True
    poll_interval: float = 30.0
    max_wait: float = 25 * 3600.0
    fallback: bool = True
    progress: TextIO | None = None
    quiet: bool = False


@dataclass
class BatchRun:
    """The result of :func:`judge_batch`.

    Attributes:
        verdicts: One per input item, in input order (unjudged ones carry their reason).
        batch_ids: Every batch holding one of the items.
        new_batch_ids: Batches created by this run.
        submitted: Requests submitted by this run.
        estimate: Token estimate of this run's submission (see :func:`.requests.estimate_tokens`).
        collected: Verdicts read from batch outputs by this run.
        pending: Distinct items still waiting in a running batch (a rerun collects them).
        cache_hits: Distinct items already in the cache before this run.
        fallback: The live run over failed requests, if any.
        input_tokens: Prompt tokens reported by the collected batch outputs.
        output_tokens: Completion tokens reported by the collected batch outputs.
        unique_items: Distinct items.
        prelabelled: Items labelled by a pre-label rule (``judge_prelabel``), never submitted.
    """

    verdicts: list[Verdict]
    batch_ids: list[str] = field(default_factory=list)
    new_batch_ids: list[str] = field(default_factory=list)
    submitted: int = 0
    estimate: dict[str, int] = field(default_factory=dict)
    collected: int = 0
    pending: int = 0
    cache_hits: int = 0
    fallback: JudgeRun | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    unique_items: int = 0
    prelabelled: int = 0

    @property
    def unjudged(self) -> int:
        """Input items without a verdict."""
        return sum(1 for verdict in self.verdicts if not verdict.judged)

    def summary(self) -> dict[str, Any]:
        """Counts as a plain dict."""
        return {
            "unique_items": self.unique_items,
            "prelabelled": self.prelabelled,
            "cache_hits": self.cache_hits,
            "submitted": self.submitted,
            "collected": self.collected,
            "pending": self.pending,
            "fallback_calls": self.fallback.calls if self.fallback else 0,
            "unjudged": self.unjudged,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "estimate": dict(self.estimate),
            "batch_ids": list(self.batch_ids),
        }


def judge_batch(items: Sequence[JudgeItem], settings: JudgeSettings, options: BatchOptions | None = None) -> BatchRun:
    """Judge items through the Batch API, filling the same cache as :func:`uta_tasks.judge.judge_all`.

    Args:
        items: The traces to judge.
        settings: Judge settings; ``judge_cache`` must be set (it holds the batch state).
        options: Limits, polling and fallback.

    Returns:
        A :class:`BatchRun` whose verdicts align with ``items``.

    Raises:
        JudgeConfigError: ``judge=none``, no cache, a missing key, or another run holds the cache.
        BatchAPIError: A Files or Batches call failed (rerun to resume).
    """
    options = options or BatchOptions()
    if not settings.enabled:
        raise JudgeConfigError("judge=none: there is nothing to judge in batch mode; set judge=openai")
    if not settings.cache:
        raise JudgeConfigError("judge_cache=none: batch mode keeps its batches in the cache file; set judge_cache")
    if settings.prelabel:
        split = prelabel.partition(list(items))
        if split.verdicts:
            rest = [items[index] for index in split.rest]
            run = judge_batch(rest, replace(settings, prelabel=False), options) if rest else BatchRun(verdicts=[])
            run.verdicts = split.combine(run.verdicts)
            run.prelabelled = len(split.verdicts)
            return run
    preflight(settings)
    items = list(items)
    template = load_template(settings.prompt)
    keys = [
        cache_key(settings.model, template.version, template.sha, settings.temperature, settings.reasoning_effort,
                  item.fingerprint())
        for item in items
    ]
    first = {key: index for index, key in reversed(list(enumerate(keys)))}
    prompts = {key: template.render(items[index]) for key, index in sorted(first.items(), key=lambda kv: kv[1])}
    stream = None if options.quiet else (options.progress or sys.stderr)
    progress = Progress(stream)
    with exclusive(settings.cache), VerdictCache(settings.cache) as cache, BatchStore(settings.cache) as store:
        api = BatchAPI(settings)
        try:
            session = _Session(settings, options, template, prompts, cache, store, api, progress)
            run = session.run()
        finally:
            api.close()
            progress.finish()
        failed = {**session.reasons(REQ_FAILED), **session.oversize}
        live: dict[str, Verdict] = {}
        if failed and options.fallback:
            progress.say(f"{len(failed)} request(s) failed or do not fit a batch: judging them with live calls")
            run.fallback = judge_all([items[first[key]] for key in failed], settings)
            live = dict(zip(failed, run.fallback.verdicts, strict=True))
        run.verdicts = _assemble(keys, prompts, cache, session, failed, live, settings, template)
    return run


class _Session:
    """One pass of submit, poll and collect over a fixed set of prompts."""

    def __init__(
        self,
        settings: JudgeSettings,
        options: BatchOptions,
        template: PromptTemplate,
        prompts: dict[str, list[dict[str, str]]],
        cache: VerdictCache,
        store: BatchStore,
        api: BatchAPI,
        progress: Progress,
    ) -> None:
        self.settings, self.options, self.template = settings, options, template
        self.prompts, self.cache, self.store, self.api, self.progress = prompts, cache, store, api, progress
        self.fresh: set[str] = set()
        self.oversize: dict[str, str] = {}
        self._visited: set[str] = set()
        self._statuses: dict[str, str] = {}

    def run(self) -> BatchRun:
        run = BatchRun(verdicts=[], unique_items=len(self.prompts))
        cached = set(self.cache.get_many(self.prompts))
        run.cache_hits = len(cached)
        self.store.discard_prepared()
        self._check_endpoint()
        for row in self.store.chunks([UPLOADED]):
            self._create(row.chunk_id, row.input_file_id or "", resumed=True)
        claims = self.store.claims(self.prompts)
        new = [key for key in self.prompts if key not in cached and key not in claims]
        self._submit(new, run)
        ours = {chunk_id for chunk_id, _, _ in self.store.claims(self.prompts).values()}
        self._poll(ours, run)
        run.batch_ids = [row.batch_id for row in self.store.chunks() if row.chunk_id in ours and row.batch_id]
        run.pending = len(self.reasons(REQ_SUBMITTED))
        return run

    def reasons(self, state: str) -> dict[str, str]:
        """Keys of our prompts in request ``state`` without a cached verdict -> reason."""
        claims = {key: claim for key, claim in self.store.claims(self.prompts).items() if claim[1] == state}
        cached = self.cache.get_many(claims)
        rows = {row.chunk_id: row for row in self.store.chunks()}
        out: dict[str, str] = {}
        for key, (chunk_id, _, reason) in claims.items():
            if key in cached:
                continue
            row = rows.get(chunk_id)
            where = f"batch {row.batch_id} ({row.batch_status})" if row and row.batch_id else f"chunk {chunk_id}"
            out[key] = reason or f"still waiting in {where}: rerun the same command to collect it"
        return out

    def _check_endpoint(self) -> None:
        for row in self.store.chunks([UPLOADED, SUBMITTED]):
            if row.base_url != self.settings.base_url:
                raise JudgeConfigError(
                    f"judge_cache={self.settings.cache!r} holds open batches of {row.base_url}, not "
                    f"{self.settings.base_url}: rerun with judge_base_url={row.base_url!r} to collect them, "
                    "or use another judge_cache"
                )

    def _submit(self, new: list[str], run: BatchRun) -> None:
        params = RequestParams(self.settings)
        limit = self.options.max_bytes

        def fitting() -> Iterator[RequestLine]:
            for key in new:
                line = encode_request(key, params.build(self.prompts[key]))
                if len(line.data) <= limit:
                    yield line
                else:  # never submitted; judged with a live call (or left unjudged)
                    size = len(line.data)
                    self.oversize[key] = f"request of {size:,} bytes exceeds the batch file limit of {limit:,}"

        lines = fitting()
        prompt_chars = 0
        for chunk in iter_chunks(lines, self.options.max_requests, self.options.max_bytes):
            chunk_id = "uta-" + hashlib.sha256("\n".join(chunk.keys).encode()).hexdigest()[:24]
            self.store.add_chunk(chunk_id, chunk.keys, chunk.n_bytes, self.settings.base_url, self.settings.model)
            file_id = self.api.upload(f"{chunk_id}.jsonl", chunk.content())
            self.store.set_uploaded(chunk_id, file_id)
            batch_id = self._create(chunk_id, file_id, resumed=False)
            self.progress.say(f"created batch {batch_id}: {len(chunk.lines)} request(s), {chunk.n_bytes:,} bytes")
            run.new_batch_ids.append(batch_id)
            run.submitted += len(chunk.lines)
            prompt_chars += sum(line.prompt_chars for line in chunk.lines)
        run.estimate = estimate_tokens(run.submitted, prompt_chars, self.settings.max_tokens)
        if run.new_batch_ids:
            self.progress.say(
                f"submitted {run.submitted} request(s) in {len(run.new_batch_ids)} batch(es): "
                f"{', '.join(run.new_batch_ids)}; estimate ~{run.estimate['input_tokens_estimate']:,} input tokens "
                f"(prompt characters / 4), at most {run.estimate['output_tokens_max']:,} output tokens"
            )

    def _create(self, chunk_id: str, file_id: str, resumed: bool) -> str:
        batch = self.api.find(chunk_id, file_id) if resumed else None
        if batch is None:
            batch = self.api.create(file_id, chunk_id)
        self.store.set_submitted(chunk_id, batch.id, batch.status)
        if resumed:
            self.progress.say(f"resumed batch {batch.id} ({batch.status})")
        return str(batch.id)

    def _poll(self, ours: set[str], run: BatchRun) -> None:
        deadline = time.monotonic() + (self.options.max_wait if self.options.wait else 0.0)
        max_polls = 1 + int(self.options.max_wait / max(self.options.poll_interval, 1e-3)) if self.options.wait else 1
        for _ in range(max_polls):
            rows = [row for row in self.store.chunks([SUBMITTED]) if row.chunk_id in ours]
            running = 0
            for row in rows:
                batch = self.api.retrieve(row.batch_id or "")
                counts = batch.request_counts.model_dump() if batch.request_counts is not None else {}
                self.store.set_status(row.chunk_id, batch.status, counts)
                if batch.status in TERMINAL:
                    self._collect(row, batch, run)
                else:
                    running += 1
            self.progress.update([row for row in self.store.chunks() if row.chunk_id in ours])
            remaining = deadline - time.monotonic()
            if running == 0 or remaining <= 0:
                return
            time.sleep(min(self.options.poll_interval, remaining))

    def _collect(self, row: ChunkRow, batch: Any, run: BatchRun) -> None:
        if row.chunk_id in self._visited:
            return
        self._visited.add(row.chunk_id)
        waiting = self.store.chunk_keys(row.chunk_id, REQ_SUBMITTED)
        known = [key for key in waiting if key in self.prompts]
        if known:
            output = self.api.content(batch.output_file_id) if batch.output_file_id else None
            errors = self.api.content(batch.error_file_id) if batch.error_file_id else None
            result = collect(batch, output, errors, known, self.prompts, self.settings, self.template)
            for key, verdict in result.verdicts.items():
                self.cache.put(key, verdict.to_dict())
                self.fresh.add(key)
            self.store.mark_requests(result.verdicts, result.failed)
            run.collected += len(result.verdicts)
            run.input_tokens += result.input_tokens
            run.output_tokens += result.output_tokens
            self.progress.say(
                f"batch {batch.id} {batch.status}: {len(result.verdicts)} verdict(s) cached, "
                f"{len(result.failed)} failed"
            )
        if len(known) == len(waiting):
            self.store.set_collected(row.chunk_id)


def _assemble(
    keys: list[str],
    prompts: dict[str, list[dict[str, str]]],
    cache: VerdictCache,
    session: _Session,
    failed: dict[str, str],
    live: dict[str, Verdict],
    settings: JudgeSettings,
    template: PromptTemplate,
) -> list[Verdict]:
    stored = cache.get_many(prompts)
    pending = session.reasons(REQ_SUBMITTED)
    verdicts: list[Verdict] = []
    for key in keys:
        if key in stored:
            verdicts.append(Verdict.from_dict({**stored[key], "cached": key not in session.fresh}))
            continue
        if key in live:
            verdicts.append(Verdict.from_dict(live[key].to_dict()))
            continue
        if key in failed:
            reason = failed[key] + "; not retried with live calls (fallback off)"
        else:
            reason = pending.get(key, "no verdict")
        verdicts.append(
            Verdict.unjudged_because(
                reason, code_from_reason(reason), prompt=prompts[key], judge_model=settings.model,
                prompt_version=template.version, prompt_sha=template.sha,
            )
        )
    return verdicts
