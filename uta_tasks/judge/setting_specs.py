"""The one table of judge settings: key, field, environment variable, coercion, default
and meaning. :class:`~uta_tasks.judge.settings.JudgeSettings` reads values through it,
and :func:`settings_table_markdown` renders it for the manual (a test checks that
docs/settings.md holds exactly that table).

Values may arrive as strings (``"8"``, ``"0.5"``, ``"none"``) and are coerced; a bad
value raises :class:`JudgeConfigError` naming the key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import JudgeConfigError
from .urls import check_url

PROVIDERS = ("openai", "none")
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
OFF_WORDS = ("", "none", "null", "off", "false", "no", "0")
ON_WORDS = ("on", "true", "yes", "1")


@dataclass(frozen=True)
class SettingSpec:
    """One judge setting.

    Attributes:
        key: The ``--metadata`` key.
        field: The :class:`JudgeSettings` attribute.
        env: Its environment variable.
        coerce: ``coerce(source, raw) -> value``; raises :class:`JudgeConfigError`.
        default: The default, as Markdown.
        meaning: What it does, as Markdown.
        env_note: More environment variables read after ``env``, as Markdown.
    """

    key: str
    field: str
    env: str
    coerce: Callable[[str, Any], Any]
    default: str
    meaning: str
    env_note: str = ""


def _text(key: str, raw: Any) -> str:
    if not isinstance(raw, str):
        raise JudgeConfigError(f"{key}={raw!r}: expected a string")
    return raw.strip()


def _int(key: str, raw: Any) -> int:
    if isinstance(raw, bool):
        raise JudgeConfigError(f"{key}={raw!r}: expected an integer")
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    try:
        return int(str(raw).strip())
    except ValueError:
        raise JudgeConfigError(f"{key}={raw!r}: expected an integer such as 8") from None


def _float(key: str, raw: Any) -> float:
    if isinstance(raw, bool):
        raise JudgeConfigError(f"{key}={raw!r}: expected a number")
    try:
        return float(str(raw).strip()) if isinstance(raw, str) else float(raw)
    except (TypeError, ValueError):
        raise JudgeConfigError(f"{key}={raw!r}: expected a number such as 0.5") from None


def _optional(inner: Callable[[str, Any], Any]) -> Callable[[str, Any], Any]:
    def coerce(key: str, raw: Any) -> Any:
        if raw is None or (isinstance(raw, str) and raw.strip().lower() in ("", "none", "null")):
            return None
        return inner(key, raw)

    return coerce


def provider(key: str, raw: Any) -> str:
    """Coerce ``judge``: every off-word (and ``false``, ``0``) means ``none``."""
    if raw is False or raw is None:
        return "none"
    if raw is True:
        return "openai"
    if isinstance(raw, (int, float)):
        raw = str(raw)
    value = _text(key, raw).lower()
    if value in OFF_WORDS:
        return "none"
    if value not in PROVIDERS:
        raise JudgeConfigError(f"{key}={raw!r}: use 'openai' (any OpenAI-compatible endpoint) or 'none'")
    return value


def url(key: str, raw: Any) -> str:
    """Coerce a base URL (credentials are refused, see :mod:`.urls`)."""
    if not isinstance(raw, str):
        raise JudgeConfigError(f"{key}: expected a URL string, got {type(raw).__name__}")
    return check_url(key, raw)


def _env_name(key: str, raw: Any) -> str:
    value = _text(key, raw)
    if not value or not value.replace("_", "").isalnum():
        raise JudgeConfigError(f"{key}={raw!r}: give the NAME of an environment variable, e.g. OPENAI_API_KEY")
    return value


def _cache(key: str, raw: Any) -> str | None:
    if raw is None or raw is False:
        return None
    value = _text(key, raw)
    if value.lower() in OFF_WORDS:
        return None
    return str(Path(value).expanduser())


def _switch(key: str, raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, (int, float)) and raw in (0, 1):
        return bool(raw)
    value = _text(key, str(raw)).lower() if raw is not None else ""
    if value in OFF_WORDS:
        return False
    if value in ON_WORDS:
        return True
    raise JudgeConfigError(f"{key}={raw!r}: use on/true/1 or off/false/0")


def _effort(key: str, raw: Any) -> str | None:
    value = _optional(_text)(key, raw)
    return value.lower() if value else None


SPECS: tuple[SettingSpec, ...] = (
    SettingSpec("judge", "provider", "UTA_JUDGE", provider, "`openai`",
                "`openai` (any OpenAI-compatible endpoint) or `none` (also `off`, `false`, `no`, `0`): "
                "no judge, no follow-up metrics"),
    SettingSpec("judge_model", "model", "UTA_JUDGE_MODEL", _text, "`gpt-5.4-mini`",
                "judge model name sent to the endpoint"),
    SettingSpec("judge_base_url", "base_url", "UTA_JUDGE_BASE_URL", url, "OpenAI API",
                "any OpenAI-compatible endpoint (`vllm serve`, llama-server, a proxy); a URL carrying "
                "credentials (`user:pass@`, `?key=`, `?token=`, ...) is refused",
                env_note="then `OPENAI_BASE_URL`"),
    SettingSpec("judge_api_key_env", "api_key_env", "UTA_JUDGE_API_KEY_ENV", _env_name, "`OPENAI_API_KEY`",
                "*name* of the variable holding the key. `OPENAI_API_KEY` is sent only to the OpenAI API, "
                "to the URL in `OPENAI_BASE_URL`, or when this setting names it"),
    SettingSpec("judge_concurrency", "concurrency", "UTA_JUDGE_CONCURRENCY", _int, "`16`",
                "requests in flight at the start (1-1024); the window then adapts up to "
                "`judge_concurrency_max`"),
    SettingSpec("judge_concurrency_max", "concurrency_max", "UTA_JUDGE_CONCURRENCY_MAX", _int, "`64`",
                "largest window of requests in flight (1-1024): it grows while calls succeed and latency "
                "holds, shrinks x0.9 on 429, 503 and timeouts; at or below `judge_concurrency` the window "
                "is fixed"),
    SettingSpec("judge_timeout", "timeout", "UTA_JUDGE_TIMEOUT", _float, "`120`", "seconds one request may take"),
    SettingSpec("judge_max_retries", "max_retries", "UTA_JUDGE_MAX_RETRIES", _int, "`4`",
                "retries per item (0-20), exponential backoff with jitter, `Retry-After` honoured"),
    SettingSpec("judge_rate_limit_wait", "rate_limit_wait", "UTA_JUDGE_RATE_LIMIT_WAIT", _float, "`600`",
                "seconds one item may spend waiting on rate limiting (429, or 503 with `Retry-After`; each "
                "answer charged at least 1 s) before such answers use up its retries; `0`: they always do"),
    SettingSpec("judge_backoff_base", "backoff_base", "UTA_JUDGE_BACKOFF_BASE", _float, "`1`",
                "seconds before the first retry, doubling"),
    SettingSpec("judge_backoff_max", "backoff_max", "UTA_JUDGE_BACKOFF_MAX", _float, "`60`",
                "cap of one computed backoff (a `Retry-After` is honoured up to 300 s)"),
    SettingSpec("judge_max_tokens", "max_tokens", "UTA_JUDGE_MAX_TOKENS", _int, "`4096`",
                "completion limit, reasoning included; a reply cut there is unjudged, not cached, "
                "and not retried at temperature 0"),
    SettingSpec("judge_temperature", "temperature", "UTA_JUDGE_TEMPERATURE", _optional(_float), "`0`",
                "`none` to not send it; dropped automatically when a model rejects it"),
    SettingSpec("judge_reasoning_effort", "reasoning_effort", "UTA_JUDGE_REASONING_EFFORT", _effort, "unset",
                "sent only when set; dropped when rejected"),
    SettingSpec("judge_cache", "cache", "UTA_JUDGE_CACHE", _cache, "`~/.cache/uta-tasks/judge.sqlite`",
                "sqlite verdict cache (`$XDG_CACHE_HOME` respected); `none` disables it"),
    SettingSpec("judge_cache_namespace", "cache_namespace", "UTA_JUDGE_CACHE_NAMESPACE", _optional(_text), "unset",
                "extra cache-key part: keeps verdicts of different backends serving one model name apart"),
    SettingSpec("judge_prompt", "prompt", "UTA_JUDGE_PROMPT", _text, "`followupeval-v3`",
                "judge template set under `uta_tasks/templates/judge/` (or a directory); `followupeval-v3` "
                "restates the paper clause by clause ([sources](parity.md#the-judge-prompt-clause-by-clause)), "
                "`followupeval-v2` and the stricter `followupeval-v1` stay selectable"),
    SettingSpec("judge_prelabel", "prelabel", "UTA_JUDGE_PRELABEL", _switch, "`off`",
                "`on`: label the unambiguous user turns by deterministic rules without a judge call "
                "(empty, a copy of q or a', assistant scaffolding, chat-template tokens; see "
                "[Pre-labels](judge.md#pre-labels)); off until validated on your judge"),
    SettingSpec("judge_max_unjudged_share", "max_unjudged_share", "UTA_JUDGE_MAX_UNJUDGED_SHARE", _float, "`0.5`",
                "largest share of unjudged items (0-1) a run accepts; above it the run fails after "
                "caching every verdict it has"),
)

SPEC_BY_KEY: dict[str, SettingSpec] = {spec.key: spec for spec in SPECS}


def settings_table_markdown() -> str:
    """The judge settings as a Markdown table (docs/settings.md's copy must equal it).

    Returns:
        The table, one row per setting, ending with a newline.
    """
    rows = ["| key | env | default | meaning |", "|---|---|---|---|"]
    for spec in SPECS:
        env = f"`{spec.env}`" + (f", {spec.env_note}" if spec.env_note else "")
        rows.append(f"| `{spec.key}` | {env} | {spec.default} | {spec.meaning} |")
    return "\n".join(rows) + "\n"
