"""How numbers and intervals are written in tables (gate outputs, report, Markdown)."""

from __future__ import annotations


def number(value: float | None, digits: int = 3) -> str:
    """A value with ``digits`` decimals, or an em dash for None.

    Args:
        value: the number.
        digits: decimals.
    """
    return "—" if value is None else f"{value:.{digits}f}"


def interval(low: float | None, high: float | None, digits: int = 3) -> str:
    """``[low, high]``, or an em dash when either end is missing.

    Args:
        low: lower end.
        high: upper end.
        digits: decimals.
    """
    if low is None or high is None:
        return "—"
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def percent(value: float | None, digits: int = 1) -> str:
    """A share in [0, 1] as a percentage, e.g. ``12.5``; an em dash for None.

    Args:
        value: the share.
        digits: decimals.
    """
    return "—" if value is None else f"{100.0 * value:.{digits}f}"


def percent_interval(low: float | None, high: float | None, digits: int = 1) -> str:
    """An interval of shares as percentages, e.g. ``[3.1, 20.4]``.

    Args:
        low: lower end (share).
        high: upper end (share).
        digits: decimals.
    """
    if low is None or high is None:
        return "—"
    return f"[{100.0 * low:.{digits}f}, {100.0 * high:.{digits}f}]"
