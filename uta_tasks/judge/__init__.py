"""FOLLOWUPEVAL, the LLM judge: is the generated user turn ``u`` a genuine, grounded
follow-up to the conversation (``q``, ``a'``)? It returns a rationale, one of eight
labels and a binary ``genuine`` decision (PROTOCOL section 4).

Use::

    from uta_tasks.judge import JudgeItem, JudgeSettings, judge_all, preflight

    settings = JudgeSettings.from_metadata(metadata)      # lm-eval --metadata dict
    preflight(settings)                                   # fail fast, before generation
    run = judge_all([JudgeItem(context=(("user", q), ("assistant", a)), user_turn=u)], settings)
    run.verdicts[0].genuine, run.calls, run.per_item_usage[0]

Settings (``--metadata`` key, else environment variable, else default; strings are
coerced, a bad value raises :class:`JudgeConfigError` naming the key; unknown
``judge_*`` keys are errors):

=========================  ==========================  ================================  ==============================================
key                        environment variable        default                           meaning
=========================  ==========================  ================================  ==============================================
judge                      UTA_JUDGE                   ``openai``                        ``openai`` (any OpenAI-compatible endpoint) or
                                                                                         ``none``: skip judging, every verdict unjudged
judge_model                UTA_JUDGE_MODEL             ``gpt-5.4-mini``                  judge model name sent to the endpoint
judge_base_url             UTA_JUDGE_BASE_URL, then    ``https://api.openai.com/v1``     endpoint base URL
                           OPENAI_BASE_URL
judge_api_key_env          UTA_JUDGE_API_KEY_ENV       ``OPENAI_API_KEY``                NAME of the variable holding the API key; the
                                                                                         key itself is never a setting (required only for
                                                                                         the OpenAI API)
judge_concurrency          UTA_JUDGE_CONCURRENCY       ``8``                             requests in flight at once (1-1024)
judge_timeout              UTA_JUDGE_TIMEOUT           ``120``                           seconds one request may take in total
judge_max_retries          UTA_JUDGE_MAX_RETRIES       ``4``                             retries per item after the first attempt (0-20)
judge_backoff_base         UTA_JUDGE_BACKOFF_BASE      ``1.0``                           seconds before the first retry, doubling
judge_backoff_max          UTA_JUDGE_BACKOFF_MAX       ``60``                            cap of one computed backoff (a ``Retry-After``
                                                                                         from the endpoint is honoured up to 300 s)
judge_max_tokens           UTA_JUDGE_MAX_TOKENS        ``4096``                          completion token limit (reasoning included);
                                                                                         a reply cut there is a failed reply
judge_temperature          UTA_JUDGE_TEMPERATURE       ``0``                             ``none`` to not send; dropped automatically
                                                                                         when the model rejects it
judge_reasoning_effort     UTA_JUDGE_REASONING_EFFORT  unset                             ``reasoning_effort`` for reasoning models;
                                                                                         dropped automatically when rejected
judge_cache                UTA_JUDGE_CACHE             ``~/.cache/uta-tasks/judge.sqlite``  sqlite verdict cache (``$XDG_CACHE_HOME``
                                                                                         respected); ``none`` disables it
judge_prompt               UTA_JUDGE_PROMPT            ``followupeval-v1``               prompt template set: a name under
                                                                                         ``uta_tasks/templates/judge`` or a directory
=========================  ==========================  ================================  ==============================================

Decisions:

- A reply that is not a valid verdict after the bounded retries (bad JSON, schema
  violation, ``finish_reason=length``, HTTP errors, timeouts) gives an *unjudged*
  verdict with its ``reason``; it must be left out of rates, never counted as 0 or 1.
- Identical items (same context and ``u``) are judged once per call; the cost is
  attributed to the first occurrence in ``per_item_usage``.
- Verdicts are cached on disk as they arrive. Unjudged verdicts are cached only when
  the endpoint replied (the reply was paid for); transport failures are retried by the
  next run. The cache key is judge model + prompt version and template
  digest + temperature + reasoning effort + item.
- The API key never appears in settings dumps, verdicts, the cache, exceptions or logs.
- Verdicts keep the exact prompt messages and the raw reply, for logged samples.
"""

from __future__ import annotations

from .errors import JudgeConfigError, ReplyError
from .labels import LABELS, VERDICT_SCHEMA
from .preflight import preflight
from .records import ItemUsage, JudgeItem, JudgeRun, Verdict
from .runner import ajudge_all, judge_all
from .settings import SETTING_KEYS, JudgeSettings

__all__ = [
    "LABELS",
    "SETTING_KEYS",
    "VERDICT_SCHEMA",
    "ItemUsage",
    "JudgeConfigError",
    "JudgeItem",
    "JudgeRun",
    "JudgeSettings",
    "ReplyError",
    "Verdict",
    "ajudge_all",
    "judge_all",
    "preflight",
]
