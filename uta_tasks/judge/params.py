"""Request parameters, and dropping the ones a model rejects.

Some models reject parameters that others need: reasoning models refuse a
``temperature`` other than the default and ``max_tokens`` (wanting
``max_completion_tokens``); older OpenAI-compatible servers know only ``max_tokens``.
When the endpoint answers HTTP 400 naming one of these parameters as unsupported,
the parameter is dropped (or the token-limit name switched) for the rest of the run,
and the request is sent again without counting as a retry. Each adjustment happens at
most once, so this is bounded.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from .labels import response_format
from .settings import JudgeSettings

log = logging.getLogger(__name__)

_REJECTION_WORDS = re.compile(
    r"unsupported|not supported|does not support|unrecognized|unknown|not allowed|extra_forbidden|extra inputs",
    re.IGNORECASE,
)
_ADJUSTABLE = ("temperature", "reasoning_effort", "max_completion_tokens", "max_tokens")


class RequestParams:
    """The parameters of every judge request in a run, adjusted when rejected.

    Args:
        settings: The judge settings.
    """

    def __init__(self, settings: JudgeSettings) -> None:
        self._settings = settings
        self.send_temperature = settings.temperature is not None
        self.send_reasoning_effort = settings.reasoning_effort is not None
        self.token_param = "max_completion_tokens"
        self._adjusted: set[str] = set()
        # One copy per run, sent as-is by every request (nothing mutates it): a deep copy of
        # the schema per request was about 5% of the client's CPU per call (perf/judge_timeline.py).
        self._response_format = response_format()

    @property
    def adjustments(self) -> list[str]:
        """What was changed in this run, e.g. ``["dropped temperature"]``."""
        return sorted(self._adjusted)

    def build(self, messages: list[dict[str, str]], max_tokens: int | None = None) -> dict[str, Any]:
        """Keyword arguments for ``chat.completions.create``.

        Args:
            messages: The judge prompt.
            max_tokens: Token limit instead of ``judge_max_tokens`` (the preflight probe).
        """
        params: dict[str, Any] = {
            "model": self._settings.model,
            "messages": messages,
            "response_format": self._response_format,
            self.token_param: self._settings.max_tokens if max_tokens is None else max_tokens,
        }
        if self.send_temperature:
            params["temperature"] = self._settings.temperature
        if self.send_reasoning_effort:
            params["reasoning_effort"] = self._settings.reasoning_effort
        return params

    def adjust(self, param: str | None, message: str, sent: dict[str, Any]) -> bool:
        """React to an HTTP 400 that may reject one of our parameters.

        Args:
            param: The ``param`` field of the error body, if any.
            message: The error message.
            sent: The keyword arguments of the rejected request.

        Returns:
            True when the rejected parameter is no longer sent (dropped or renamed now
            or by a concurrent request): send again. False otherwise.
        """
        name = param if param in _ADJUSTABLE else _first_mentioned(message)
        if name is None or name not in sent or not (param in _ADJUSTABLE or _REJECTION_WORDS.search(message)):
            return False
        if name == "temperature":
            if self.send_temperature:
                self.send_temperature = False
                self._note("dropped temperature")
            return True
        if name == "reasoning_effort":
            if self.send_reasoning_effort:
                self.send_reasoning_effort = False
                self._note("dropped reasoning_effort")
            return True
        if name == self.token_param and f"token_param:{name}" not in self._adjusted:
            self.token_param = "max_tokens" if name == "max_completion_tokens" else "max_completion_tokens"
            self._note(f"token_param:{name}")
        return name != self.token_param

    def _note(self, what: str) -> None:
        log.warning("judge model %s rejected a parameter: %s for this run", self._settings.model, what)
        self._adjusted.add(what)


def _first_mentioned(message: str) -> str | None:
    positions = {
        name: match.start()
        for name in _ADJUSTABLE
        if (match := re.search(rf"(?<![a-z_]){name}(?![a-z_])", message))
    }
    return min(positions, key=lambda name: positions[name]) if positions else None
