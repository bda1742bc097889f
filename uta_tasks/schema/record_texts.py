"""Each text of a probe record stored once (record version 4): a text made of other texts of
the record is written as the pieces it is made of, and :func:`expand` rebuilds it exactly.

Most texts of a record repeat others: ``answer`` and ``history`` are ``a`` or a part of it,
``a_prime`` is ``history`` cut (trunc) or followed by the cue (question), the pass-2 prompt is
the pass-1 prompt, then a', then the template's marker and user header (``join``), or the role
switch's template around q and a'; ``u_ref`` and the user samples repeat ``u``; a verdict's
``raw_reply`` holds its ``rationale``. :func:`compact` writes such a field as a JSON list of
pieces, each a literal string or ``[name]`` (the whole of an earlier text) or
``[name, start, end]`` (a slice of it); :func:`expand` joins the pieces back. A field kept as
a JSON string is the text itself, so a record of any version reads with :func:`expand`.
``q`` is left out when it is the last user message (:func:`question_text`).

:func:`compact` keeps a field as pieces only when :func:`expand` gives back the very same
text, so the round trip is exact by construction. The judge prompt of a verdict is not a text
of the record: the judge layer leaves it out (``Verdict.prompt_by_ref``) and rebuilds it from
its template version and digest and the record's texts
(:func:`uta_tasks.probe.verdict_prompts.verdict_prompt`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

# The record's texts in the order they are rebuilt: a field's pieces name earlier ones only.
TEXT_ORDER = ("q", "a", "answer", "history", "cue", "a_prime", "pass1_prompt", "reference_user_turn", "u", "u_ref",
              "pass2_prompt", "pass2_ref_prompt")
SAMPLES = "u_samples"  # a list of texts, after ``u``; its j-th entry is named "u_samples#j"
JOIN = "join"  # trace mode: {marker, header}, sources named "join.marker", "join.header"
VERDICT_SAMPLES = "verdict_samples"
# Key of a verdict written as its differences from the record's ``verdict``.
LIKE = "like_verdict"
# The texts of a verdict its raw reply is written with.
_REPLY_SOURCES = ("rationale", "label")
# A text shorter than this is written as it is: a reference would not save its bytes.
MIN_SHARED = 12

Sources = list[tuple[str, str]]
Piece = str | list[Any]


def _found(target: str, sources: Sources) -> tuple[int, int, Piece] | None:
    """The longest text of ``sources`` that occurs in ``target`` (where, its length, its piece),
    or the longest one ``target`` is a part of."""
    best: tuple[int, int, Piece] | None = None
    for name, text in sources:
        if len(text) < MIN_SHARED or (best is not None and len(text) <= best[1]):
            continue
        at = target.find(text)
        if at >= 0:
            best = (at, len(text), [name])
    if best is not None:
        return best
    for name, text in sources:
        at = text.find(target) if len(target) >= MIN_SHARED else -1
        if at >= 0:
            return 0, len(target), [name, at, at + len(target)]
    return None


def _pieces(target: str, sources: Sources) -> list[Piece]:
    """``target`` as literal strings and references to ``sources``, left to right (iterative: a
    text that repeats a source many times needs no deep recursion)."""
    out: list[Piece] = []
    todo: list[str | list[Any]] = [target]  # a stack: the next segment (or piece) on top
    while todo:
        segment = todo.pop()
        if isinstance(segment, list):
            out.append(segment)
            continue
        found = _found(segment, sources) if len(segment) >= MIN_SHARED else None
        if found is None:
            if segment:
                out.append(segment)
            continue
        at, length, piece = found
        todo += [segment[at + length:], piece, segment[:at]]
    return out


def _resolve(pieces: list[Any], known: dict[str, str], where: str) -> str:
    out = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece)
            continue
        if not isinstance(piece, list) or not piece or piece[0] not in known:
            raise ValueError(f"{where}: piece {piece!r} names no earlier text of the record")
        text = known[piece[0]]
        if len(piece) == 3 and all(isinstance(i, int) for i in piece[1:]):
            text = text[piece[1]:piece[2]]
        elif len(piece) != 1:
            raise ValueError(f"{where}: piece {piece!r} is neither [name] nor [name, start, end]")
        out.append(text)
    return "".join(out)


def _encoded(text: str, sources: Sources) -> Piece:
    pieces = _pieces(text, sources)
    if all(isinstance(p, str) for p in pieces):
        return text
    return pieces


def question_text(messages: Any) -> str:
    """The last user turn of chat messages: q.

    Args:
        messages: chat messages.
    """
    for message in reversed(messages if isinstance(messages, list) else []):
        if isinstance(message, dict) and message.get("role") == "user":
            return str(message.get("content", ""))
    return ""


def _walk(data: dict[str, Any], visit: Callable[[str, Any, Sources], tuple[Any, str]]) -> None:
    """Call ``visit(name, value, sources)`` on each text in :data:`TEXT_ORDER` but ``q`` (then
    the user samples after ``u``); it returns what to store and the whole text, which becomes a
    source of the texts after it."""
    sources: Sources = [("q", question_text(data.get("messages")))]
    join = data.get(JOIN)
    if isinstance(join, dict):
        sources += [(f"{JOIN}.{k}", v) for k, v in join.items() if isinstance(v, str)]
    for name in TEXT_ORDER[1:]:
        if isinstance(data.get(name), (str, list)):
            data[name], whole = visit(name, data[name], sources)
            sources.append((name, whole))
        if name == "u" and isinstance(data.get(SAMPLES), list):
            samples = data[SAMPLES] = list(data[SAMPLES])
            for j, value in enumerate(samples):
                samples[j], whole = visit(f"{SAMPLES}#{j}", value, sources)
                sources.append((f"{SAMPLES}#{j}", whole))


def compact(data: dict[str, Any]) -> dict[str, Any]:
    """A record dict (``ProbeRecord.to_dict``) with each text written once: ``q`` left out when
    it is the last user message, every other text as its pieces when that is shorter; every
    verdict's ``raw_reply`` as pieces of its ``rationale``, and each entry of
    ``verdict_samples`` equal to an earlier one (or to ``verdict``) as that entry's index
    (``-1``: ``verdict``).

    Args:
        data: the record as plain JSON types (not changed).
    """
    out = dict(data)

    def visit(name: str, value: Any, sources: Sources) -> tuple[Any, str]:
        return (_encoded(value, sources), value) if isinstance(value, str) else (value, "")

    _walk(out, visit)
    if out.get("q") == question_text(out.get("messages")):
        del out["q"]
    base = out["verdict"] = _compact_verdict(out.get("verdict"))
    for slot in ("verdict_ref", "verdict_reference"):
        out[slot] = _like(_compact_verdict(out.get(slot)), base)
    samples = out.get(VERDICT_SAMPLES)
    if isinstance(samples, list):
        written: list[Any] = []
        for j, verdict in enumerate(samples):
            same = -1 if verdict is not None and verdict == data.get("verdict") else \
                next((i for i in range(j) if verdict is not None and samples[i] == verdict), None)
            written.append(same if same is not None else _like(_compact_verdict(verdict), base))
        out[VERDICT_SAMPLES] = written
    return out


def _like(verdict: Any, base: Any) -> Any:
    """A verdict as what differs from the record's ``verdict`` (``{LIKE: {"set": ..., "unset": ...}}``),
    when that is shorter."""
    if not isinstance(verdict, dict) or not isinstance(base, dict):
        return verdict
    diff: dict[str, Any] = {"set": {k: v for k, v in verdict.items() if k not in base or base[k] != v}}
    gone = [k for k in base if k not in verdict]
    if gone:
        diff["unset"] = gone
    return {LIKE: diff} if len(json.dumps(diff)) < len(json.dumps(verdict)) else verdict


def _unlike(verdict: Any, base: Any, where: str) -> Any:
    if not isinstance(verdict, dict) or LIKE not in verdict:
        return verdict
    diff = verdict[LIKE]
    if not isinstance(base, dict) or not isinstance(diff, dict) or not isinstance(diff.get("set", {}), dict):
        raise ValueError(f"{where}: written as a difference from the record's verdict, which is not a verdict")
    whole = {**base, **diff.get("set", {})}
    for key in diff.get("unset", []):
        whole.pop(key, None)
    return whole


def _compact_verdict(verdict: Any) -> Any:
    if not isinstance(verdict, dict) or not isinstance(verdict.get("raw_reply"), str):
        return verdict
    sources = [(k, verdict[k]) for k in _REPLY_SOURCES if isinstance(verdict.get(k), str)]
    return {**verdict, "raw_reply": _encoded(verdict["raw_reply"], sources)}


def _expand_verdict(verdict: Any, where: str) -> Any:
    if not isinstance(verdict, dict) or not isinstance(verdict.get("raw_reply"), list):
        return verdict
    known = {k: verdict[k] for k in _REPLY_SOURCES if isinstance(verdict.get(k), str)}
    return {**verdict, "raw_reply": _resolve(verdict["raw_reply"], known, f"{where}: raw_reply")}


def expand(data: dict[str, Any], where: str = "a probe record") -> dict[str, Any]:
    """The record dict with every text whole again (the inverse of :func:`compact`; a record
    written whole passes through).

    Args:
        data: the decoded JSON of a record (not changed).
        where: names the record in error messages.

    Raises:
        ValueError: a piece names no earlier text, or an entry of ``verdict_samples`` names no
            earlier verdict.
    """
    out = dict(data)
    if "q" not in out and "messages" in out:
        out["q"] = question_text(out["messages"])

    def visit(name: str, value: Any, sources: Sources) -> tuple[Any, str]:
        whole = _resolve(value, dict(sources), f"{where}: {name}") if isinstance(value, list) else value
        return whole, whole if isinstance(whole, str) else ""

    _walk(out, visit)
    base = out.get("verdict")  # as stored: the others are written as differences from it
    out["verdict"] = _expand_verdict(base, f"{where}: verdict")
    for slot in ("verdict_ref", "verdict_reference"):
        out[slot] = _expand_verdict(_unlike(out.get(slot), base, f"{where}: {slot}"), f"{where}: {slot}")
    samples = out.get(VERDICT_SAMPLES)
    if isinstance(samples, list):
        whole: list[Any] = []
        for j, verdict in enumerate(samples):
            at = f"{where}: {VERDICT_SAMPLES}[{j}]"
            if isinstance(verdict, int) and not isinstance(verdict, bool):
                if not -1 <= verdict < j:
                    raise ValueError(f"{at} = {verdict} names no earlier verdict")
                whole.append(out["verdict"] if verdict == -1 else whole[verdict])
            else:
                whole.append(_expand_verdict(_unlike(verdict, base, at), at))
        out[VERDICT_SAMPLES] = whole
    return out


def texts_of(data: dict[str, Any]) -> Iterable[str]:
    """A record's own texts (q, the answer, the user turns, the rationales): what a logged
    line must at least hold, the measure of its size.

    Args:
        data: a record dict with its texts whole (:func:`expand`).
    """
    yield from (data.get(k) or "" for k in ("q", "a", "reference_user_turn", "cue"))
    yield from data.get(SAMPLES) or [data.get("u") or ""]
    if data.get("perturbation") != "none":
        yield data.get("u_ref") or ""
    verdicts = [data.get("verdict"), data.get("verdict_ref"), data.get("verdict_reference"),
                *(data.get(VERDICT_SAMPLES) or [])[1:]]
    yield from ((v.get("rationale") or "") for v in verdicts if isinstance(v, dict))
