"""The one table of judge settings: one :class:`SettingSpec` per setting, holding its
``--metadata`` key, :class:`~uta_tasks.judge.settings.JudgeSettings` field, kind, default,
range or choices, environment variable and one-line doc.

Everything else derives from it: the dataclass' field defaults and its validation
(:meth:`SettingSpec.check`), reading values (:meth:`SettingSpec.read`), the manual's
table (:func:`settings_table_markdown`; a test keeps docs/settings.md's copy equal), the
commands' ``--help`` texts (:meth:`SettingSpec.help`) and the quickstart's judge model. A
default changes here, in one line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from uta_tasks.paths import judge_cache

from .errors import JudgeConfigError
from .setting_values import Kind, coerce_value
from .urls import OPENAI_API_URL, check_url

_KIND_TEXT: dict[Kind, str] = {
    "provider": "one of", "choice": "one of", "text": "text", "url": "http(s) URL", "env_name": "variable name",
    "int": "integer", "float": "number", "path": "file path", "switch": "`on` or `off`",
}
_MD_LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")


@dataclass(frozen=True)
class SettingSpec:
    """One judge setting.

    Attributes:
        key: the ``--metadata`` key; its environment variable is ``UTA_`` + the key in capitals.
        field: the :class:`~uta_tasks.judge.settings.JudgeSettings` attribute.
        kind: how a raw value is read (:mod:`.setting_values`).
        default: the value when neither the key nor its variable is given.
        doc: what it does, as one line of Markdown (the manual's table; ``--help`` shows it
            as plain text).
        low: the smallest allowed value of a number, or None.
        high: the largest allowed value of a number, or None.
        choices: the allowed values of a choice, or None.
        optional: whether the setting may be unset (None; ``none`` in metadata).
        default_factory: computes the default when a :class:`JudgeSettings` is built (the
            cache path follows ``$XDG_CACHE_HOME``), instead of ``default``.
        shown_default: how the manual shows a computed default.
        env_note: more environment variables read after :attr:`env`, as Markdown.
    """

    key: str
    field: str
    kind: Kind
    default: Any
    doc: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] | None = None
    optional: bool = False
    default_factory: Callable[[], Any] | None = None
    shown_default: str = ""
    env_note: str = ""

    @property
    def env(self) -> str:
        """The environment variable read when the key is not in ``--metadata``."""
        return f"UTA_{self.key.upper()}"

    def read(self, source: str, raw: Any) -> Any:
        """The checked value of ``raw``, as given in ``--metadata`` or the environment.

        Args:
            source: where it came from, for messages (the key, or ``key (from $VAR)``).
            raw: the value as given (a string, or a JSON value).

        Raises:
            JudgeConfigError: it cannot be read, or it is outside the range or choices.
        """
        value = coerce_value(self.kind, self.optional, source, raw)
        self.check(value, source)
        return value

    def check(self, value: Any, source: str = "") -> None:
        """Raise :class:`JudgeConfigError` when ``value`` is not allowed (the message names
        the setting and the values it takes).

        Args:
            value: the setting's value.
            source: where it came from (default: the key).
        """
        source = source or self.key
        if value is None and self.optional:
            return
        if self.choices is not None and value not in self.choices:
            unset = " or leave it unset" if self.optional else ""
            raise JudgeConfigError(f"{source}={value!r}: use one of {self.choices}{unset}")
        if self.kind == "text" and not value:
            raise JudgeConfigError(f"{source} is empty: set it, e.g. {self.key}={self.default}")
        if self.kind == "url":
            check_url(source, value)
        if self.low is not None and self.high is not None and not self.low <= value <= self.high:
            raise JudgeConfigError(f"{source}={value!r} is out of range: use a value in [{self.low}, {self.high}]")

    def default_value(self) -> Any:
        """The default (computed now when it has a :attr:`default_factory`)."""
        return self.default_factory() if self.default_factory else self.default

    def default_markdown(self) -> str:
        """The default as the manual's table shows it."""
        if self.default_factory:
            return self.shown_default
        return "unset" if self.default is None else f"`{_plain(self.default)}`"

    def allowed_markdown(self) -> str:
        """The values the setting takes, as the manual's table shows them."""
        if self.choices is not None:
            text = "one of " + ", ".join(f"`{choice}`" for choice in self.choices)
        elif self.low is not None and self.high is not None:
            text = f"{_KIND_TEXT[self.kind]}, {_plain(self.low)}-{_plain(self.high)}"
        else:
            text = _KIND_TEXT[self.kind]
        return text + ("; `none` unsets it" if self.optional else "")

    def help(self) -> str:
        """The one-line doc as plain text, for a command's ``--help``."""
        return _MD_LINK.sub(r"\1", self.doc).replace("`", "").replace("*", "")


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


SPECS: tuple[SettingSpec, ...] = (
    SettingSpec("judge", "provider", "provider", "openai",
                "`openai` (any OpenAI-compatible endpoint) or `none` (also `off`, `false`, `no`, `0`): "
                "no judge, no follow-up metrics", choices=("openai", "none")),
    SettingSpec("judge_model", "model", "text", "gpt-5.4-mini", "judge model name sent to the endpoint"),
    SettingSpec("judge_base_url", "base_url", "url", OPENAI_API_URL,
                "any OpenAI-compatible endpoint (`vllm serve`, llama-server, a proxy); a URL with a user "
                "(`user:pass@`) or a query parameter other than `api-version`, `version`, `revision` "
                "(`?key=`, `?jwt=`, ...) is refused",
                env_note="then `OPENAI_BASE_URL`"),
    SettingSpec("judge_api_key_env", "api_key_env", "env_name", "OPENAI_API_KEY",
                "*name* of the variable holding the key. `OPENAI_API_KEY` is sent only to the OpenAI API, "
                "to the URL in `OPENAI_BASE_URL`, or when this setting names it"),
    SettingSpec("judge_concurrency", "concurrency", "int", 32,
                "requests in flight at the start; the window then adapts up to `judge_concurrency_max`",
                low=1, high=1024),
    SettingSpec("judge_concurrency_max", "concurrency_max", "int", 64,
                "largest window of requests in flight: it grows while calls succeed and latency holds, shrinks "
                "by half a request per 429, 503 or timeout; at or below `judge_concurrency` the window is fixed",
                low=1, high=1024),
    SettingSpec("judge_timeout", "timeout", "float", 120.0, "seconds one request may take", low=0.001, high=3600),
    SettingSpec("judge_start_wait", "start_wait", "float", 0.0,
                "seconds the check of the judge waits for a judge server started beside lm_eval until it "
                "answers a completion (refused connections, an unanswered model list and 503 are retried, and the "
                "first completion has no shorter timeout); the model generates meanwhile, and a server that has "
                "not answered by then fails the run before the first verdict; `0`: the check fails at once, "
                "before generation",
                low=0, high=3600),
    SettingSpec("judge_max_retries", "max_retries", "int", 4,
                "retries per item, exponential backoff with jitter, `Retry-After` honoured", low=0, high=20),
    SettingSpec("judge_rate_limit_wait", "rate_limit_wait", "float", 600.0,
                "seconds one item may spend waiting on rate limiting (429, or 503 with `Retry-After`; each "
                "answer charged at least 1 s) before such answers use up its retries; `0`: they always do",
                low=0, high=86400),
    SettingSpec("judge_backoff_base", "backoff_base", "float", 1.0, "seconds before the first retry, doubling",
                low=0, high=600),
    SettingSpec("judge_backoff_max", "backoff_max", "float", 60.0,
                "cap of one computed backoff (a `Retry-After` is honoured up to 300 s)", low=0, high=3600),
    SettingSpec("judge_max_tokens", "max_tokens", "int", 4096,
                "completion limit, reasoning included; a reply cut there is unjudged, not cached, "
                "and not retried at temperature 0", low=1, high=1_000_000),
    SettingSpec("judge_temperature", "temperature", "float", 0.0,
                "`none` to not send it; dropped automatically when a model rejects it", low=0, high=2, optional=True),
    SettingSpec("judge_reasoning_effort", "reasoning_effort", "choice", None,
                "sent only when set; dropped when rejected",
                choices=("none", "minimal", "low", "medium", "high", "xhigh"), optional=True),
    SettingSpec("judge_cache", "cache", "path", None,
                "sqlite verdict cache (`$XDG_CACHE_HOME` respected); `none` disables it", optional=True,
                default_factory=lambda: str(judge_cache()), shown_default="`~/.cache/uta-tasks/judge.sqlite`"),
    SettingSpec("judge_cache_namespace", "cache_namespace", "text", None,
                "extra cache-key part: keeps verdicts of different backends serving one model name apart",
                optional=True),
    SettingSpec("judge_prompt", "prompt", "text", "followupeval-v4",
                "judge template set under `uta_tasks/templates/judge/` (or a directory); `followupeval-v4` "
                "restates the paper clause by clause ([sources](parity.md#the-judge-prompt-clause-by-clause)); "
                "`followupeval-v3`, `followupeval-v2` and the stricter `followupeval-v1` stay selectable"),
    SettingSpec("judge_prelabel", "prelabel", "switch", False,
                "`on`: label the unambiguous user turns by deterministic rules without a judge call "
                "(empty, a copy of q or a', assistant scaffolding, chat-template tokens; see "
                "[Pre-labels](judge.md#pre-labels)); off until validated on your judge"),
    SettingSpec("judge_max_unjudged_share", "max_unjudged_share", "float", 0.5,
                "largest share of unjudged items a run accepts; above it the run fails after "
                "caching every verdict it has", low=0, high=1),
)

SPEC_BY_KEY: dict[str, SettingSpec] = {spec.key: spec for spec in SPECS}
SPEC_BY_FIELD: dict[str, SettingSpec] = {spec.field: spec for spec in SPECS}


def settings_table_markdown() -> str:
    """The judge settings as a Markdown table (docs/settings.md's copy must equal it).

    Returns:
        The table, one row per setting, ending with a newline.
    """
    rows = ["| key | env | default | allowed | meaning |", "|---|---|---|---|---|"]
    for spec in SPECS:
        env = f"`{spec.env}`" + (f", {spec.env_note}" if spec.env_note else "")
        rows.append(f"| `{spec.key}` | {env} | {spec.default_markdown()} | {spec.allowed_markdown()} | {spec.doc} |")
    return "\n".join(rows) + "\n"
