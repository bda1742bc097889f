"""Two small JSON-schema tools for the judge tests.

- :func:`strict_violations` lists what breaks OpenAI's documented subset for strict
  structured outputs ("Supported schemas"): the root is an object and not a union;
  every object closes ``additionalProperties`` and requires all its properties; only
  supported keywords (no ``oneOf``, ``allOf``, ``not``, ``if``/``then``/``else``,
  ``const``, ``default``, ``patternProperties``); at most 10 levels of nesting; at most
  1000 enum values. Objects in one ``anyOf`` must be told apart by their first key: it
  must be the same key with disjoint enum values (the "must not share identical first
  keys" rejection). The real check of the endpoint is the preflight; the SDK check is
  the slow test with ``openai``'s ``toStrictJsonSchema``.
- :func:`is_valid` validates an instance against the keywords the verdict schema uses
  (``type``, ``enum``, ``properties``, ``required``, ``additionalProperties``, ``anyOf``).
"""

from __future__ import annotations

from typing import Any

SUPPORTED = {
    "type", "properties", "required", "additionalProperties", "description", "title", "enum", "anyOf",
    "items", "$defs", "$ref", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
}
MAX_DEPTH = 10
MAX_ENUM_VALUES = 1000
_TYPES = {"object": dict, "string": str, "boolean": bool, "array": list}


def strict_violations(schema: dict[str, Any]) -> list[str]:
    """Every rule of the strict subset that ``schema`` breaks (empty when none)."""
    problems: list[str] = []
    if schema.get("type") != "object":
        problems.append("root: type is not object")
    if "anyOf" in schema:
        problems.append("root: anyOf at the root")
    enum_values: list[int] = []
    _walk(schema, "root", 0, problems, enum_values)
    if sum(enum_values) > MAX_ENUM_VALUES:
        problems.append(f"{sum(enum_values)} enum values in all")
    return problems


def _walk(node: dict[str, Any], path: str, depth: int, problems: list[str], enum_values: list[int]) -> None:
    if depth > MAX_DEPTH:
        problems.append(f"{path}: deeper than {MAX_DEPTH} levels")
    for key in sorted(set(node) - SUPPORTED):
        problems.append(f"{path}: unsupported keyword {key}")
    if "enum" in node:
        enum_values.append(len(node["enum"]))
    if node.get("type") == "object":
        properties = node.get("properties", {})
        if node.get("additionalProperties") is not False:
            problems.append(f"{path}: additionalProperties is not false")
        if list(node.get("required", [])) != list(properties):
            problems.append(f"{path}: required does not list every property in order")
        for name, child in properties.items():
            _walk(child, f"{path}.{name}", depth + 1, problems, enum_values)
    branches = node.get("anyOf", [])
    for index, child in enumerate(branches):
        _walk(child, f"{path}.anyOf[{index}]", depth, problems, enum_values)
    objects = [b for b in branches if b.get("type") == "object"]
    if len(objects) > 1:
        firsts = {next(iter(b.get("properties", {})), None) for b in objects}
        values = [tuple(b["properties"][f].get("enum", ())) for b in objects for f in firsts if f]
        flat = [v for group in values for v in group]
        if len(firsts) == 1 and (not all(values) or len(flat) != len(set(flat))):
            problems.append(f"{path}: anyOf objects share a first key with overlapping values")


def is_valid(instance: Any, schema: dict[str, Any]) -> bool:
    """Whether ``instance`` satisfies ``schema`` (the keywords listed in the module docstring)."""
    if "anyOf" in schema and not any(is_valid(instance, branch) for branch in schema["anyOf"]):
        return False
    expected = schema.get("type")
    if expected is not None:
        kind = _TYPES[expected]
        if not isinstance(instance, kind) or (kind is not bool and isinstance(instance, bool)):
            return False
    if "enum" in schema and not any(instance == v and type(instance) is type(v) for v in schema["enum"]):
        return False
    if isinstance(instance, dict) and "properties" in schema:
        properties = schema["properties"]
        if any(key not in instance for key in schema.get("required", [])):
            return False
        if schema.get("additionalProperties") is False and any(key not in properties for key in instance):
            return False
        return all(is_valid(value, properties[key]) for key, value in instance.items() if key in properties)
    return True
