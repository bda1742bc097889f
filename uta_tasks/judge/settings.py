"""Judge settings, read from lm-eval ``--metadata`` keys and ``UTA_JUDGE_*`` variables.

Precedence: a ``--metadata`` key, then its environment variable, then the default.
Values may arrive as strings (``"8"``, ``"0.5"``, ``"none"``) and are coerced; a bad
value raises :class:`JudgeConfigError` naming the key. An unknown ``judge_*`` key is
an error too, and so is a key that looks like a typo of one (``jduge_model``).

The API key is never a setting: it is read from the environment variable named by
``judge_api_key_env`` when the client is built, so it cannot end up in settings dumps,
results, logs or the cache. Where it may be sent:

- to the OpenAI API (https, host ``api.openai.com``);
- to any endpoint when the user named the variable (``judge_api_key_env`` or
  ``UTA_JUDGE_API_KEY_ENV``);
- to the URL in ``OPENAI_BASE_URL``, which pairs ``OPENAI_API_KEY`` with an endpoint
  (the openai client's own convention).

A URL given as ``judge_base_url`` or ``UTA_JUDGE_BASE_URL`` does not receive
``OPENAI_API_KEY`` otherwise. The table of settings is :data:`.setting_specs.SPECS`
(:func:`.setting_specs.settings_table_markdown`, copied into docs/settings.md).
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import JudgeConfigError
from .setting_specs import (
    PROVIDERS,
    REASONING_EFFORTS,
    SPEC_BY_KEY,
    SPECS,
    settings_table_markdown,
)
from .urls import check_url, is_openai_api

OPENAI_API_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-5.4-mini"
DEFAULT_PROMPT = "followupeval-v3"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
SETTING_KEYS: tuple[str, ...] = tuple(spec.key for spec in SPECS)
_TYPO_CUTOFF = 0.8

__all__ = ["SETTING_KEYS", "JudgeSettings", "judging_enabled", "settings_table_markdown", "suggest_key"]


def default_cache_path() -> Path:
    """``$XDG_CACHE_HOME/uta-tasks/judge.sqlite`` (``~/.cache/...`` without XDG)."""
    from uta_tasks.paths import judge_cache

    return judge_cache()


@dataclass(frozen=True)
class JudgeSettings:
    """Everything that decides how items are judged. Build with :meth:`from_metadata`.

    Attributes:
        provider: ``"openai"`` (any OpenAI-compatible endpoint) or ``"none"`` (skip judging).
        model: Judge model name sent to the endpoint.
        base_url: Endpoint base URL, e.g. ``http://127.0.0.1:8080/v1``.
        api_key_env: Name of the environment variable holding the API key.
        concurrency: Requests in flight at the start (the window then adapts, see :mod:`.concurrency`).
        concurrency_max: Largest window; at or below ``concurrency`` the window is fixed.
        timeout: Seconds one request may take in total.
        max_retries: Retries after the first attempt (attempts = max_retries + 1).
        rate_limit_wait: Seconds of rate-limit waits an item may spend before rate-limited
            answers count against ``max_retries`` (see :mod:`.client`).
        backoff_base: Seconds before the first retry; doubles per retry, with jitter.
        backoff_max: Upper bound of one computed backoff, in seconds.
        max_tokens: Completion token limit per request (reasoning tokens included).
        temperature: Sampling temperature, or None to not send one.
        reasoning_effort: ``reasoning_effort`` for reasoning models, or None to not send one.
        cache: Path of the sqlite cache, or None for no cache.
        cache_namespace: Extra part of every cache key, or None.
        prompt: Prompt template set: a name under ``uta_tasks/templates/judge/`` or a directory.
        max_unjudged_share: Largest share of unjudged items a run accepts (0-1).
        prelabel: Label unambiguous items by rules without a judge call (see :mod:`.prelabel`).
        api_key_env_named: True when the user named the key variable (so it may go to
            any endpoint); set by :meth:`from_metadata`.
        base_url_paired: True when the base URL is the one in ``$OPENAI_BASE_URL``
            (paired with its key by the user); set by :meth:`from_metadata`.
    """

    provider: str = "openai"
    model: str = DEFAULT_MODEL
    base_url: str = OPENAI_API_URL
    api_key_env: str = DEFAULT_KEY_ENV
    concurrency: int = 16
    concurrency_max: int = 64
    timeout: float = 120.0
    max_retries: int = 4
    rate_limit_wait: float = 600.0
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    max_tokens: int = 4096
    temperature: float | None = 0.0
    reasoning_effort: str | None = None
    cache: str | None = None
    cache_namespace: str | None = None
    prompt: str = DEFAULT_PROMPT
    max_unjudged_share: float = 0.5
    prelabel: bool = False
    api_key_env_named: bool = False
    base_url_paired: bool = False

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise JudgeConfigError(f"judge={self.provider!r}: use one of {PROVIDERS}")
        _check_range("judge_concurrency", self.concurrency, 1, 1024)
        _check_range("judge_concurrency_max", self.concurrency_max, 1, 1024)
        _check_range("judge_timeout", self.timeout, 0.001, 3600)
        _check_range("judge_max_retries", self.max_retries, 0, 20)
        _check_range("judge_rate_limit_wait", self.rate_limit_wait, 0, 86400)
        _check_range("judge_backoff_base", self.backoff_base, 0, 600)
        _check_range("judge_backoff_max", self.backoff_max, 0, 3600)
        _check_range("judge_max_tokens", self.max_tokens, 1, 1_000_000)
        _check_range("judge_max_unjudged_share", self.max_unjudged_share, 0, 1)
        if self.temperature is not None:
            _check_range("judge_temperature", self.temperature, 0, 2)
        if self.reasoning_effort is not None and self.reasoning_effort not in REASONING_EFFORTS:
            raise JudgeConfigError(
                f"judge_reasoning_effort={self.reasoning_effort!r}: use one of {REASONING_EFFORTS} "
                "or leave it unset"
            )
        if not self.model:
            raise JudgeConfigError("judge_model is empty: name the judge model, e.g. gpt-5.4-mini")
        check_url("judge_base_url", self.base_url)

    @property
    def enabled(self) -> bool:
        """False when ``judge=none``."""
        return self.provider != "none"

    @property
    def is_openai_api(self) -> bool:
        """True when the endpoint is OpenAI's own API (https, host ``api.openai.com``; a key
        is then required)."""
        return is_openai_api(self.base_url)

    @property
    def may_send_key(self) -> bool:
        """True when the key variable may be sent to ``base_url`` (see the module docstring)."""
        return self.is_openai_api or self.api_key_env_named or self.base_url_paired

    def api_key(self) -> str | None:
        """The API key from the environment (never stored on the settings), or None when
        it is unset or may not go to this endpoint."""
        if not self.may_send_key:
            return None
        return os.environ.get(self.api_key_env) or None

    def withheld_key_note(self) -> str:
        """Why no key is sent although ``$api_key_env`` is set ('' when nothing is withheld)."""
        if self.may_send_key or not os.environ.get(self.api_key_env):
            return ""
        return (
            f"${self.api_key_env} was not sent: it goes only to the OpenAI API or to the URL in "
            f"OPENAI_BASE_URL; to send it to this endpoint set judge_api_key_env={self.api_key_env}"
        )

    def describe(self) -> dict[str, Any]:
        """The settings as a JSON-serialisable dict for results (holds no secret)."""
        return {spec.key: getattr(self, spec.field) for spec in SPECS}

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
        _reject_unknown_keys(metadata)
        values: dict[str, Any] = {}
        for spec in SPECS:
            if spec.key in metadata:
                raw, source = metadata[spec.key], spec.key
            elif env.get(spec.env) is not None:
                raw, source = env[spec.env], f"{spec.key} (from ${spec.env})"
            else:
                continue
            values[spec.field] = spec.coerce(source, raw)
        paired_url = (env.get("OPENAI_BASE_URL") or "").strip().rstrip("/")
        if paired_url and "base_url" not in values:
            values["base_url"] = SPEC_BY_KEY["judge_base_url"].coerce(
                "judge_base_url (from $OPENAI_BASE_URL)", paired_url
            )
        values["base_url_paired"] = bool(paired_url) and values.get("base_url") == paired_url
        values["api_key_env_named"] = "api_key_env" in values
        if "cache" not in values:
            values["cache"] = str(default_cache_path())
        return cls(**values)


def judging_enabled(metadata: Mapping[str, Any] | None, environ: Mapping[str, str] | None = None) -> bool:
    """Whether a run judges at all: the one place that decides "judge off".

    Every off-word of ``judge`` (``none``, ``off``, ``false``, ``no``, ``0``, a JSON
    ``false``) and ``UTA_JUDGE=none`` turn judging off. The judge settings are fully
    validated on the way, so a bad ``judge_*`` value fails here, before generation.

    Args:
        metadata: The task metadata (lm-eval ``--metadata``); non-judge keys are ignored.
        environ: Environment to read (default: ``os.environ``).

    Raises:
        JudgeConfigError: A judge setting is invalid or misspelt.
    """
    return JudgeSettings.from_metadata(metadata, environ).enabled


def suggest_key(key: str) -> str | None:
    """The judge setting ``key`` is probably a typo of, e.g. ``jduge_model`` -> ``judge_model``.

    Args:
        key: A metadata key that is not a judge setting.

    Returns:
        The closest judge setting key, or None when ``key`` is one already or nothing is close.
    """
    if key in SETTING_KEYS:
        return None
    matches = difflib.get_close_matches(key.lower(), SETTING_KEYS, n=1, cutoff=_TYPO_CUTOFF)
    return matches[0] if matches else None


def _reject_unknown_keys(metadata: Mapping[str, Any]) -> None:
    for key in sorted(metadata):
        if key in SPEC_BY_KEY:
            continue
        suggestion = suggest_key(key)
        if suggestion:
            raise JudgeConfigError(f"unknown setting {key!r}: did you mean {suggestion!r}? (--metadata)")
        if key.startswith("judge"):
            raise JudgeConfigError(f"unknown judge setting {key!r}: valid keys are {sorted(SETTING_KEYS)}")


def _check_range(key: str, value: float, low: float, high: float) -> None:
    if not low <= value <= high:
        raise JudgeConfigError(f"{key}={value!r} is out of range: use a value in [{low}, {high}]")


def metadata_from_json(text: str, prog: str) -> dict[str, Any]:
    """The ``--metadata`` JSON object of a command line, as lm_eval takes it.

    Args:
        text: the argument.
        prog: the command, for the message.

    Raises:
        SystemExit: the text is not a JSON object (the message says so and names the command).
    """
    try:
        metadata = json.loads(text)
    except ValueError as exc:
        raise SystemExit(f"{prog}: --metadata must be a JSON object of judge settings ({exc})") from None
    if not isinstance(metadata, dict):
        raise SystemExit(f"{prog}: --metadata must be a JSON object of judge settings, not {type(metadata).__name__}")
    return metadata
