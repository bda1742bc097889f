"""Reading one judge setting's raw value: ``--metadata`` and environment values arrive as
strings (``"8"``, ``"0.5"``, ``"none"``) or JSON values and are coerced to the setting's
kind; a value that cannot be read raises :class:`JudgeConfigError` naming where it came
from. Ranges and choices are checked afterwards, by the spec
(:meth:`.setting_specs.SettingSpec.check`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from .errors import JudgeConfigError
from .urls import check_url

Kind = Literal["provider", "choice", "text", "url", "env_name", "int", "float", "path", "switch"]
Coerce = Callable[[str, Any], Any]

OFF_WORDS = ("", "none", "null", "off", "false", "no", "0")
ON_WORDS = ("on", "true", "yes", "1")
_UNSET_WORDS = ("", "none", "null")


def _text(source: str, raw: Any) -> str:
    if not isinstance(raw, str):
        raise JudgeConfigError(f"{source}={raw!r}: expected a string")
    return raw.strip()


def _choice(source: str, raw: Any) -> str:
    return _text(source, raw).lower()


def _int(source: str, raw: Any) -> int:
    if isinstance(raw, bool):
        raise JudgeConfigError(f"{source}={raw!r}: expected an integer")
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    try:
        return int(str(raw).strip())
    except ValueError:
        raise JudgeConfigError(f"{source}={raw!r}: expected an integer such as 8") from None


def _float(source: str, raw: Any) -> float:
    if isinstance(raw, bool):
        raise JudgeConfigError(f"{source}={raw!r}: expected a number")
    try:
        return float(str(raw).strip()) if isinstance(raw, str) else float(raw)
    except (TypeError, ValueError):
        raise JudgeConfigError(f"{source}={raw!r}: expected a number such as 0.5") from None


def _provider(source: str, raw: Any) -> str:
    """``judge``: every off-word (and ``false``, ``0``) means ``none``, ``true`` means ``openai``."""
    if raw is False or raw is None:
        return "none"
    if raw is True:
        return "openai"
    if isinstance(raw, (int, float)):
        raw = str(raw)
    value = _choice(source, raw)
    return "none" if value in OFF_WORDS else value


def _url(source: str, raw: Any) -> str:
    """A base URL (credentials are refused, see :mod:`.urls`)."""
    if not isinstance(raw, str):
        raise JudgeConfigError(f"{source}: expected a URL string, got {type(raw).__name__}")
    return check_url(source, raw)


def _env_name(source: str, raw: Any) -> str:
    value = _text(source, raw)
    if not value or not value.replace("_", "").isalnum():
        raise JudgeConfigError(f"{source}={raw!r}: give the NAME of an environment variable, e.g. OPENAI_API_KEY")
    return value


def _path(source: str, raw: Any) -> str | None:
    if raw is None or raw is False:
        return None
    value = _text(source, raw)
    if value.lower() in OFF_WORDS:
        return None
    return str(Path(value).expanduser())


def _switch(source: str, raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, (int, float)) and raw in (0, 1):
        return bool(raw)
    value = _text(source, str(raw)).lower() if raw is not None else ""
    if value in OFF_WORDS:
        return False
    if value in ON_WORDS:
        return True
    raise JudgeConfigError(f"{source}={raw!r}: use on/true/1 or off/false/0")


_BY_KIND: dict[Kind, Coerce] = {
    "provider": _provider, "choice": _choice, "text": _text, "url": _url, "env_name": _env_name,
    "int": _int, "float": _float, "path": _path, "switch": _switch,
}


def coerce_value(kind: Kind, optional: bool, source: str, raw: Any) -> Any:
    """The value of a setting of ``kind`` given as ``raw``.

    Args:
        kind: the setting's kind.
        optional: whether ``none``/``null``/empty (or a JSON null) unsets it.
        source: where the value came from, for messages (``judge_timeout (from $UTA_JUDGE_TIMEOUT)``).
        raw: the value as given.

    Raises:
        JudgeConfigError: the value cannot be read as that kind.
    """
    if optional and (raw is None or (isinstance(raw, str) and raw.strip().lower() in _UNSET_WORDS)):
        return None
    return _BY_KIND[kind](source, raw)
