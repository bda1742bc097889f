"""Judge settings, read from lm-eval ``--metadata`` keys and ``UTA_JUDGE_*`` variables.

Precedence: a ``--metadata`` key, then its environment variable, then the default.
Values may arrive as strings (``"8"``, ``"0.5"``, ``"none"``) and are coerced; a bad
value raises :class:`JudgeConfigError` naming the key. An unknown ``judge_*`` key is
an error too (catches typos). The API key is never a setting: it is read from the
environment variable named by ``judge_api_key_env`` when the client is built, so it
cannot end up in settings dumps, results, logs or the cache.

See :mod:`uta_tasks.judge` for the table of settings.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .errors import JudgeConfigError

OPENAI_API_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-5.4-mini"
DEFAULT_PROMPT = "followupeval-v1"
PROVIDERS = ("openai", "none")
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
_OFF_WORDS = ("", "none", "null", "off", "false", "no", "0")


def default_cache_path() -> Path:
    """``$XDG_CACHE_HOME/uta-tasks/judge.sqlite`` (``~/.cache/...`` without XDG)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "uta-tasks" / "judge.sqlite"


@dataclass(frozen=True)
class JudgeSettings:
    """Everything that decides how items are judged. Build with :meth:`from_metadata`.

    Attributes:
        provider: ``"openai"`` (any OpenAI-compatible endpoint) or ``"none"`` (skip judging).
        model: Judge model name sent to the endpoint.
        base_url: Endpoint base URL, e.g. ``http://127.0.0.1:8080/v1``.
        api_key_env: Name of the environment variable holding the API key.
        concurrency: Requests in flight at once.
        timeout: Seconds one request may take in total.
        max_retries: Retries after the first attempt (attempts = max_retries + 1).
        backoff_base: Seconds before the first retry; doubles per retry, with jitter.
        backoff_max: Upper bound of one computed backoff, in seconds.
        max_tokens: Completion token limit per request (reasoning tokens included).
        temperature: Sampling temperature, or None to not send one.
        reasoning_effort: ``reasoning_effort`` for reasoning models, or None to not send one.
        cache: Path of the sqlite cache, or None for no cache.
        prompt: Prompt template set: a name under ``uta_tasks/templates/judge/`` or a directory.
    """

    provider: str = "openai"
    model: str = DEFAULT_MODEL
    base_url: str = OPENAI_API_URL
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 8
    timeout: float = 120.0
    max_retries: int = 4
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    max_tokens: int = 4096
    temperature: float | None = 0.0
    reasoning_effort: str | None = None
    cache: str | None = None
    prompt: str = DEFAULT_PROMPT

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise JudgeConfigError(f"judge={self.provider!r}: use one of {PROVIDERS}")
        _check_range("judge_concurrency", self.concurrency, 1, 1024)
        _check_range("judge_timeout", self.timeout, 0.001, 3600)
        _check_range("judge_max_retries", self.max_retries, 0, 20)
        _check_range("judge_backoff_base", self.backoff_base, 0, 600)
        _check_range("judge_backoff_max", self.backoff_max, 0, 3600)
        _check_range("judge_max_tokens", self.max_tokens, 1, 1_000_000)
        if self.temperature is not None:
            _check_range("judge_temperature", self.temperature, 0, 2)
        if self.reasoning_effort is not None and self.reasoning_effort not in REASONING_EFFORTS:
            raise JudgeConfigError(
                f"judge_reasoning_effort={self.reasoning_effort!r}: use one of {REASONING_EFFORTS} "
                "or leave it unset"
            )
        if not self.model:
            raise JudgeConfigError("judge_model is empty: name the judge model, e.g. gpt-5.4-mini")
        if not self.base_url.startswith(("http://", "https://")):
            raise JudgeConfigError(
                f"judge_base_url={self.base_url!r}: give an http(s) URL such as http://127.0.0.1:8080/v1"
            )

    @property
    def enabled(self) -> bool:
        """False when ``judge=none``."""
        return self.provider != "none"

    @property
    def is_openai_api(self) -> bool:
        """True when the endpoint is OpenAI's own API (a key is then required)."""
        return "api.openai.com" in self.base_url

    def api_key(self) -> str | None:
        """The API key from the environment (never stored on the settings)."""
        return os.environ.get(self.api_key_env) or None

    def describe(self) -> dict[str, Any]:
        """The settings as a JSON-serialisable dict for results (holds no secret)."""
        return {f"judge_{name}" if name != "provider" else "judge": value for name, value in asdict(self).items()}

    @classmethod
    def from_metadata(
        cls, metadata: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
    ) -> JudgeSettings:
        """Read settings from lm-eval ``--metadata`` and the environment.

        Args:
            metadata: The task metadata dict; keys other than ``judge*`` are ignored.
            environ: Environment to read (default: ``os.environ``).

        Returns:
            Validated settings.
        """
        metadata = dict(metadata or {})
        env = os.environ if environ is None else environ
        if "judge_api_key" in metadata:
            raise JudgeConfigError(
                "judge_api_key: the API key is read only from the environment; set OPENAI_API_KEY "
                "(or the variable named by judge_api_key_env) and remove judge_api_key from --metadata"
            )
        unknown = sorted(
            key for key in metadata if key.startswith("judge") and key not in _SPECS
        )
        if unknown:
            raise JudgeConfigError(
                f"unknown judge setting(s) {unknown}: valid keys are {sorted(_SPECS)}"
            )
        values: dict[str, Any] = {}
        for key, (field_name, env_var, coerce) in _SPECS.items():
            if key in metadata:
                raw, source = metadata[key], key
            elif env_var and env.get(env_var) is not None:
                raw, source = env[env_var], f"{key} (from ${env_var})"
            else:
                continue
            values[field_name] = coerce(source, raw)
        if "base_url" not in values and env.get("OPENAI_BASE_URL"):
            values["base_url"] = _url("judge_base_url (from $OPENAI_BASE_URL)", env["OPENAI_BASE_URL"])
        if "cache" not in values:
            values["cache"] = str(default_cache_path())
        return cls(**values)


def _check_range(key: str, value: float, low: float, high: float) -> None:
    if not low <= value <= high:
        raise JudgeConfigError(f"{key}={value!r} is out of range: use a value in [{low}, {high}]")


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


def _provider(key: str, raw: Any) -> str:
    if raw is False or raw is None:
        return "none"
    value = _text(key, raw).lower()
    if value in _OFF_WORDS:
        return "none"
    if value not in PROVIDERS:
        raise JudgeConfigError(f"{key}={raw!r}: use 'openai' (any OpenAI-compatible endpoint) or 'none'")
    return value


def _url(key: str, raw: Any) -> str:
    value = _text(key, raw).rstrip("/")
    if not value.startswith(("http://", "https://")):
        raise JudgeConfigError(f"{key}={raw!r}: give an http(s) URL such as http://127.0.0.1:8080/v1")
    return value


def _env_name(key: str, raw: Any) -> str:
    value = _text(key, raw)
    if not value or not value.replace("_", "").isalnum():
        raise JudgeConfigError(f"{key}={raw!r}: give the NAME of an environment variable, e.g. OPENAI_API_KEY")
    return value


def _cache(key: str, raw: Any) -> str | None:
    if raw is None or raw is False:
        return None
    value = _text(key, raw)
    if value.lower() in _OFF_WORDS:
        return None
    return str(Path(value).expanduser())


def _effort(key: str, raw: Any) -> str | None:
    value = _optional(_text)(key, raw)
    return value.lower() if value else None


# metadata key -> (field, environment variable, coercion)
_SPECS: dict[str, tuple[str, str | None, Callable[[str, Any], Any]]] = {
    "judge": ("provider", "UTA_JUDGE", _provider),
    "judge_model": ("model", "UTA_JUDGE_MODEL", _text),
    "judge_base_url": ("base_url", "UTA_JUDGE_BASE_URL", _url),
    "judge_api_key_env": ("api_key_env", "UTA_JUDGE_API_KEY_ENV", _env_name),
    "judge_concurrency": ("concurrency", "UTA_JUDGE_CONCURRENCY", _int),
    "judge_timeout": ("timeout", "UTA_JUDGE_TIMEOUT", _float),
    "judge_max_retries": ("max_retries", "UTA_JUDGE_MAX_RETRIES", _int),
    "judge_backoff_base": ("backoff_base", "UTA_JUDGE_BACKOFF_BASE", _float),
    "judge_backoff_max": ("backoff_max", "UTA_JUDGE_BACKOFF_MAX", _float),
    "judge_max_tokens": ("max_tokens", "UTA_JUDGE_MAX_TOKENS", _int),
    "judge_temperature": ("temperature", "UTA_JUDGE_TEMPERATURE", _optional(_float)),
    "judge_reasoning_effort": ("reasoning_effort", "UTA_JUDGE_REASONING_EFFORT", _effort),
    "judge_cache": ("cache", "UTA_JUDGE_CACHE", _cache),
    "judge_prompt": ("prompt", "UTA_JUDGE_PROMPT", _text),
}

SETTING_KEYS: tuple[str, ...] = tuple(_SPECS)
