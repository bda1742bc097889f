"""Replacing an lm-eval function or method once, however many times a uta entry point asks."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any


def wrap_once(owner: Any, name: str, item: Any,
              wrap: Callable[[Callable[..., Any], inspect.Signature, list[Any]], Callable[..., Any]]) -> None:
    """Replace ``owner.name`` (a class's method or a module's function) once by
    ``wrap(original, its signature, items)``; every call adds ``item`` to the ``items`` the
    wrapper reads (once per item).

    Args:
        owner: the class or module.
        name: the attribute.
        item: what this call adds (a folder, a check).
        wrap: makes the replacement.
    """
    original = vars(owner)[name] if name in vars(owner) else getattr(owner, name)  # lm_eval loads simple_evaluate lazily
    items = getattr(original, "_uta_items", None)
    if items is not None:
        if item not in items:
            items.append(item)
        return
    items = [item]
    replacement = functools.wraps(original)(wrap(original, inspect.signature(original), items))
    replacement._uta_items = items  # type: ignore[attr-defined]
    setattr(owner, name, replacement)
