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

import dataclasses
import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import JudgeConfigError
from .setting_specs import SPEC_BY_FIELD, SPEC_BY_KEY, SPECS, settings_table_markdown
from .urls import OPENAI_API_URL, is_openai_api

DEFAULT_PROMPT: str = SPEC_BY_KEY["judge_prompt"].default
SETTING_KEYS: tuple[str, ...] = tuple(spec.key for spec in SPECS)
_TYPO_CUTOFF = 0.8
# The two provenance flags in :meth:`JudgeSettings.to_dict` (not settings: no ``judge_`` prefix).
_KEY_NAMED = "api_key_env_named"
_URL_PAIRED = "base_url_paired"

__all__ = [
    "OPENAI_API_URL", "SETTING_KEYS", "JudgeSettings", "judging_enabled", "settings_table_markdown", "suggest_key",
]


def _default(name: str) -> Any:
    """The dataclass default of field ``name``: its spec's (computed when built, for the cache path)."""
    spec = SPEC_BY_FIELD[name]
    if spec.default_factory is not None:
        return dataclasses.field(default_factory=spec.default_factory)
    return spec.default


@dataclass(frozen=True)
class JudgeSettings:
    """Everything that decides how items are judged. Build with :meth:`from_metadata`.

    Field defaults, ranges and choices are those of :data:`.setting_specs.SPECS`.

    Attributes:
        provider: ``"openai"`` (any OpenAI-compatible endpoint) or ``"none"`` (skip judging).
        model: Judge model name sent to the endpoint.
        base_url: Endpoint base URL, e.g. ``http://127.0.0.1:8080/v1``.
        api_key_env: Name of the environment variable holding the API key.
        concurrency: Requests in flight at the start (the window then adapts, see :mod:`.concurrency`).
        concurrency_max: Largest window; at or below ``concurrency`` the window is fixed.
        timeout: Seconds one request may take in total.
        start_wait: Seconds the preflight keeps trying an endpoint that refuses connections.
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
        max_unjudged_share: Largest share of unjudged items a run accepts.
        prelabel: Label unambiguous items by rules without a judge call (see :mod:`.prelabel`).
        api_key_env_named: True when the user named the key variable (so it may go to
            any endpoint); set by :meth:`from_metadata`.
        base_url_paired: True when the base URL is the one in ``$OPENAI_BASE_URL``
            (paired with its key by the user); set by :meth:`from_metadata`.
    """

    provider: str = _default("provider")
    model: str = _default("model")
    base_url: str = _default("base_url")
    api_key_env: str = _default("api_key_env")
    concurrency: int = _default("concurrency")
    concurrency_max: int = _default("concurrency_max")
    timeout: float = _default("timeout")
    start_wait: float = _default("start_wait")
    max_retries: int = _default("max_retries")
    rate_limit_wait: float = _default("rate_limit_wait")
    backoff_base: float = _default("backoff_base")
    backoff_max: float = _default("backoff_max")
    max_tokens: int = _default("max_tokens")
    temperature: float | None = _default("temperature")
    reasoning_effort: str | None = _default("reasoning_effort")
    cache: str | None = _default("cache")
    cache_namespace: str | None = _default("cache_namespace")
    prompt: str = _default("prompt")
    max_unjudged_share: float = _default("max_unjudged_share")
    prelabel: bool = _default("prelabel")
    api_key_env_named: bool = False
    base_url_paired: bool = False

    def __post_init__(self) -> None:
        for spec in SPECS:
            spec.check(getattr(self, spec.field))

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

    def to_dict(self) -> dict[str, Any]:
        """The settings as a :class:`~uta_tasks.schema.probe.ProbeSpec` logs them: :meth:`describe`
        plus where the key variable and the URL came from (no secret: the key itself is read
        from ``$api_key_env`` when the client is built); a setting at its stated default is left
        out (:meth:`from_dict` restores it), one computed when the settings are built is kept."""
        kept = {spec.key: getattr(self, spec.field) for spec in SPECS
                if spec.default_factory is not None or getattr(self, spec.field) != spec.default}
        return {**kept, _KEY_NAMED: self.api_key_env_named, _URL_PAIRED: self.base_url_paired}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JudgeSettings:
        """Rebuild settings from :meth:`to_dict`, reading no environment (they were resolved
        once, by :meth:`from_metadata`). A key left out keeps its default.

        Args:
            data: the dict (or the raw ``judge*`` metadata older specs carried).

        Raises:
            JudgeConfigError: a value is not allowed.
        """
        values: dict[str, Any] = {spec.field: spec.read(spec.key, data[spec.key]) for spec in SPECS if spec.key in data}
        values["api_key_env_named"] = bool(data.get(_KEY_NAMED, "api_key_env" in values))
        values["base_url_paired"] = bool(data.get(_URL_PAIRED, False))
        return cls(**values)

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
            values[spec.field] = spec.read(source, raw)
        paired_url = (env.get("OPENAI_BASE_URL") or "").strip().rstrip("/")
        if paired_url and "base_url" not in values:
            values["base_url"] = SPEC_BY_KEY["judge_base_url"].read(
                "judge_base_url (from $OPENAI_BASE_URL)", paired_url
            )
        values["base_url_paired"] = bool(paired_url) and values.get("base_url") == paired_url
        values["api_key_env_named"] = "api_key_env" in values
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

