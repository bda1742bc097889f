"""The JSON a record or verdict is decoded from holds the types its fields declare.

A samples file is read back by every command; a field of another type (a list where a
string belongs, a string where a dict belongs) would otherwise surface far from the file
as a ``TypeError`` or ``AttributeError``. :func:`check_field_types` refuses it where the
record is decoded, with a ``ValueError`` naming the field.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable
from typing import Any, Literal

_JSON_TYPES: dict[Any, tuple[type, ...]] = {str: (str,), bool: (bool,), int: (int,), float: (int, float),
                                            dict: (dict,), list: (list,), Any: (object,)}


@functools.cache
def _field_checkers(cls: type) -> dict[str, tuple[Any, Callable[[Any], bool]]]:
    """Each field's hint and its test, worked out once per class (a ``typing`` union hashes
    its arms on every lookup: too slow for the per-record loop)."""
    return {name: (hint, _checker(hint)) for name, hint in typing.get_type_hints(cls).items()}


@functools.cache
def _checker(hint: Any) -> Callable[[Any], bool]:
    """Whether a value (decoded JSON) fits ``hint``, with the items of a list and the values of a
    dict: the test worked out once per hint (a samples file decodes the same few hints for
    every record, so ``typing`` stays out of the per-record loop)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        plain = _plain_kinds(args)
        if plain is not None:  # ``str | None`` and the like: one isinstance
            return lambda value: isinstance(value, plain)
        arms = tuple(_checker(arm) for arm in args)
        return lambda value: any(arm(value) for arm in arms)
    if hint is type(None):
        return lambda value: value is None
    if origin is Literal:  # a status: the class's own check names the allowed values
        return lambda value: True
    if origin is list:
        (item_hint,) = typing.get_args(hint) or (Any,)
        item = _checker(item_hint)
        return lambda value: isinstance(value, list) and all(item(v) for v in value)
    if origin is dict:
        _, value_hint = typing.get_args(hint) or (str, Any)
        entry = _checker(value_hint)
        return lambda value: isinstance(value, dict) and all(entry(v) for v in value.values())
    kinds = _JSON_TYPES.get(hint)
    if kinds is None:  # a class of ours (a verdict): decoded by its own from_dict
        return lambda value: True
    if hint is int:
        return lambda value: isinstance(value, int) and not isinstance(value, bool)
    return lambda value: isinstance(value, kinds)


def _plain_kinds(args: tuple[Any, ...]) -> tuple[type, ...] | None:
    """The types a union of plain JSON types and None accepts, or None when an arm is more
    than that (a list, a dict of something, a class of ours) or is ``int`` (which refuses a
    bool, that ``isinstance`` would take)."""
    kinds: list[type] = []
    for arm in args:
        if arm is type(None):
            kinds.append(arm)
        elif arm in _JSON_TYPES and arm is not Any and arm is not int:
            kinds.extend(_JSON_TYPES[arm])
        else:
            return None
    return tuple(kinds)


def check_field_types(cls: type, data: dict[str, Any], what: str) -> None:
    """Raise ``ValueError`` when a key of ``data`` that is a field of the dataclass ``cls``
    holds a value of another type than the field declares.

    Args:
        cls: the dataclass.
        data: the decoded JSON object.
        what: names the object in the message (``a probe record``).
    """
    checkers = _field_checkers(cls)
    for name, value in data.items():
        found = checkers.get(name)
        if found is not None and not found[1](value):
            hint = found[0]
            raise ValueError(f"{what}: field {name!r} is {type(value).__name__} {_excerpt(value)}, not {hint}")


def _excerpt(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
