"""FOLLOWUPEVAL, the LLM judge: is the generated user turn ``u`` a genuine, grounded
follow-up to the conversation (``q``, ``a'``)? It returns a rationale, one of eight
labels and a binary ``genuine`` decision (the paper's summary, "The LLM Judge: FOLLOWUPEVAL";
page, section 2.2).

Use::

    from uta_tasks.judge import JudgeItem, JudgeSettings, judge_all, preflight

    settings = JudgeSettings.from_metadata(metadata)      # lm-eval --metadata dict
    preflight(settings)                                   # fail fast, before generation
    run = judge_all([JudgeItem(context=(("user", q), ("assistant", a)), user_turn=u)], settings)
    run.verdicts[0].genuine, run.calls, run.per_item_usage[0]

Settings (``--metadata`` key, else environment variable, else default; strings are
coerced, a bad value raises :class:`JudgeConfigError` naming the key; unknown
``judge_*`` keys and typos of them are errors): the one table is
:data:`uta_tasks.judge.setting_specs.SPECS`, rendered by
:func:`~uta_tasks.judge.settings.settings_table_markdown` into the manual's settings page
(docs/settings.md, between the ``judge-settings`` markers; a test keeps them equal).

For the task: :func:`~uta_tasks.judge.settings.judging_enabled` decides "judge off"
once; :func:`~uta_tasks.judge.settings.suggest_key` names the judge key a typo meant;
after :func:`judge_all`, log ``format_summary(run.summary())`` and call
:func:`enforce_unjudged_share` (raises :class:`JudgeUnjudgedError`).

Decisions:

- A reply that is not a valid verdict after the bounded retries (bad JSON, schema
  violation, ``finish_reason=length``, HTTP errors, timeouts, unreadable bodies) gives
  an *unjudged* verdict with its ``reason`` and ``reason_code``; it must be left out of
  rates, never counted as 0 or 1. Nothing about one item can abort the run.
- Identical items (same context and ``u``) are judged once per call; the cost and the
  cache hit are attributed to the first occurrence in ``per_item_usage``.
- Verdicts are cached on disk as they arrive. An unjudged verdict is cached only when
  the last attempt got a paid reply that is not a valid verdict; outages, truncation at
  ``judge_max_tokens`` and unreadable bodies are retried by the next run. The cache key
  is judge model + prompt version and template digest + temperature + reasoning
  effort + item (+ ``judge_cache_namespace`` when set). A cache that cannot be written
  costs only the cache: the run finishes and reports ``not_persisted``.
- Verdicts record the ``model`` and ``system_fingerprint`` the reply named.
- The API key never appears in settings dumps, verdicts, the cache, exceptions or logs;
  URLs carrying credentials are refused; ``OPENAI_API_KEY`` goes only to the OpenAI API,
  the ``OPENAI_BASE_URL`` endpoint, or when ``judge_api_key_env`` names it.
- Verdicts keep the exact prompt messages and the raw reply, for logged samples.
- Requests in flight adapt to the endpoint (:mod:`.concurrency`); rate limiting (429, or
  503 with ``Retry-After``) retries without using up an item's retries, for at most
  ``judge_rate_limit_wait`` seconds per item (:mod:`.client`).
- ``judge_prelabel=on`` labels the unambiguous turns by deterministic rules without a
  call (:mod:`.prelabel`, marked ``prelabel_rule``, never cached); validate the rules
  against a judge with ``uta-prelabel-check`` (:mod:`.prelabel_check`).
"""

from __future__ import annotations

from .errors import JudgeConfigError, JudgeUnjudgedError, ReplyError
from .labels import LABELS, VERDICT_SCHEMA
from .preflight import PendingPreflight, preflight, start_preflight
from .records import ItemUsage, JudgeItem, JudgeRun, Verdict
from .runner import ajudge_all, judge_all
from .settings import (
    SETTING_KEYS,
    JudgeSettings,
    judging_enabled,
    settings_table_markdown,
    suggest_key,
)
from .summary import enforce_unjudged_share, format_summary

__all__ = [
    "LABELS",
    "SETTING_KEYS",
    "VERDICT_SCHEMA",
    "ItemUsage",
    "JudgeConfigError",
    "JudgeItem",
    "JudgeRun",
    "JudgeSettings",
    "JudgeUnjudgedError",
    "PendingPreflight",
    "ReplyError",
    "Verdict",
    "ajudge_all",
    "enforce_unjudged_share",
    "format_summary",
    "judge_all",
    "judging_enabled",
    "preflight",
    "settings_table_markdown",
    "start_preflight",
    "suggest_key",
]
