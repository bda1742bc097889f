"""The judge's decision on one user turn (:class:`Verdict`) and its status vocabulary.

A verdict is either :data:`JUDGED` (a label and a ``genuine`` decision) or
:data:`UNJUDGED` (no decision: it is left out of every rate, never counted as 0). These
two constants are the only place the status strings are written; everything else reads
``verdict.judged``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Final, Literal

from uta_tasks.schema.field_types import check_field_types
from uta_tasks.schema.labels import pairing_error
from uta_tasks.schema.reasons import code_from_reason

VerdictStatus = Literal["judged", "unjudged"]
JUDGED: Final = "judged"
UNJUDGED: Final = "unjudged"
STATUSES: tuple[VerdictStatus, ...] = (JUDGED, UNJUDGED)

# What a missing core key of a partial verdict dict reads as (see Verdict.from_dict).
_EMPTY: dict[str, Any] = {
    "label": None, "genuine": None, "rationale": None, "reason": None, "raw_reply": None, "prompt": list,
    "judge_model": "", "prompt_version": "",
}


@dataclass(slots=True)
class Verdict:
    """The judge's decision on one item, or why there is none.

    An ``unjudged`` verdict has ``label`` and ``genuine`` set to None and must be left
    out of rates (never counted as 0 or 1); its ``reason`` says why.

    Attributes:
        status: :data:`JUDGED` or :data:`UNJUDGED`.
        label: One of :data:`uta_tasks.schema.labels.LABELS` when judged.
        genuine: The binary genuine-follow-up decision when judged.
        rationale: The judge's explanation when judged.
        reason: Why the item is unjudged (None when judged).
        raw_reply: Reply text of the last attempt (None when that attempt got no reply).
        prompt: The exact messages sent to the judge.
        judge_model: Model name sent to the endpoint.
        prompt_version: Name of the prompt template set, e.g. ``followupeval-v1``.
        prompt_sha: Digest of the template files actually used (catches unversioned edits).
        cached: True when this verdict was read from the disk cache.
        attempts: Requests sent for this item in the run that produced the verdict.
        reason_code: Short code of ``reason`` (see :mod:`uta_tasks.schema.reasons`), None when judged.
        reply_model: The ``model`` the endpoint's reply named (None when absent or no reply).
        system_fingerprint: The reply's ``system_fingerprint`` (None when absent or no reply).
        prelabel_rule: The deterministic rule that set this verdict instead of the judge
            (``judge_model`` is then ``prelabel``, see :mod:`uta_tasks.judge.prelabel`), None for the judge's.
        prompt_by_ref: True when ``prompt`` is not stored (it is then empty): the messages sent are
            the template ``prompt_version`` (digest ``prompt_sha``) applied to the record's texts,
            and :func:`uta_tasks.probe.verdict_prompts.verdict_prompt` rebuilds them (record
            version 4).
    """

    status: VerdictStatus
    label: str | None
    genuine: bool | None
    rationale: str | None
    reason: str | None
    raw_reply: str | None
    prompt: list[dict[str, str]]
    judge_model: str
    prompt_version: str
    prompt_sha: str = ""
    cached: bool = False
    attempts: int = 0
    reason_code: str | None = None
    reply_model: str | None = None
    system_fingerprint: str | None = None
    prelabel_rule: str | None = None
    prompt_by_ref: bool = False

    @property
    def judged(self) -> bool:
        """True when a valid verdict was obtained."""
        return self.status == JUDGED

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable copy, for logged samples and the cache (``prompt_by_ref`` only when
        True: a verdict with its prompt is written as before version 4)."""
        data = asdict(self)
        data["prompt"] = [dict(message) for message in self.prompt]
        if not self.prompt_by_ref:
            del data["prompt_by_ref"]
        return data

    def to_stored_dict(self) -> dict[str, Any]:
        """:meth:`to_dict` without the keys :meth:`from_dict` restores as they are (those holding
        their default), as a record of version 4 stores a verdict."""
        data = {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "prompt_by_ref"}
        data["prompt"] = [dict(message) for message in self.prompt]
        if self.prompt_by_ref:
            data["prompt_by_ref"] = True
        for name, spec in self.__dataclass_fields__.items():
            if name in ("status", "reason_code") or name not in data:  # from_dict derives a missing code of an unjudged verdict
                continue
            empty = _EMPTY.get(name, spec.default)
            if data[name] == (empty() if callable(empty) else empty):
                del data[name]
        if self.judged and self.reason_code is None:
            del data["reason_code"]
        return data

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"verdict status {self.status!r} is not one of {list(STATUSES)}")

    @classmethod
    def judged_as(cls, label: str, genuine: bool, *, rationale: str | None, prompt: list[dict[str, str]],
                  judge_model: str, prompt_version: str, prompt_sha: str = "", raw_reply: str | None = None,
                  attempts: int = 0, reply_model: str | None = None, system_fingerprint: str | None = None,
                  prelabel_rule: str | None = None) -> Verdict:
        """A judged verdict; the label and its pairing with ``genuine`` are checked here
        (:func:`uta_tasks.schema.labels.pairing_error`).

        Args:
            label: one of :data:`uta_tasks.schema.labels.LABELS`.
            genuine: the decision.
            rationale: the judge's explanation.
            prompt: the messages sent.
            judge_model: the model asked.
            prompt_version: the prompt template set.
            prompt_sha: digest of the templates used.
            raw_reply: the reply text.
            attempts: requests sent for the item.
            reply_model: the ``model`` the reply named.
            system_fingerprint: the reply's ``system_fingerprint``.
            prelabel_rule: the rule that decided instead of the judge.

        Raises:
            ValueError: an unknown label, or a decision the label does not allow.
        """
        error = pairing_error(label, genuine)
        if error is not None:
            raise ValueError(f"not a valid verdict: {error}")
        return cls(JUDGED, label, genuine, rationale, None, raw_reply, prompt, judge_model, prompt_version,
                   prompt_sha, False, attempts, None, reply_model, system_fingerprint, prelabel_rule)

    @classmethod
    def unjudged_because(cls, reason: str, reason_code: str, *, prompt: list[dict[str, str]], judge_model: str,
                         prompt_version: str, prompt_sha: str = "", raw_reply: str | None = None, attempts: int = 0,
                         reply_model: str | None = None, system_fingerprint: str | None = None) -> Verdict:
        """An unjudged verdict: no label, no decision, the reason and its code.

        Args:
            reason: why there is no decision.
            reason_code: its code (:mod:`uta_tasks.schema.reasons`).
            prompt: the messages sent.
            judge_model: the model asked.
            prompt_version: the prompt template set.
            prompt_sha: digest of the templates used.
            raw_reply: the last reply text, if any.
            attempts: requests sent for the item.
            reply_model: the ``model`` the last reply named.
            system_fingerprint: the last reply's ``system_fingerprint``.
        """
        return cls(UNJUDGED, None, None, None, reason, raw_reply, prompt, judge_model, prompt_version, prompt_sha,
                   False, attempts, reason_code, reply_model, system_fingerprint)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdict:
        """Rebuild a verdict written by :meth:`to_dict` (or a bare verdict dict, such as a
        row of a human-label file).

        Args:
            data: The dict; keys added by later versions may be missing (they default),
                unknown keys are ignored. ``reason_code`` of an older unjudged verdict is
                read from its reason. A dict without the core keys (a partial or
                hand-written verdict) reads them as empty: no label, no decision, no prompt.

        Raises:
            ValueError: ``status`` is missing or not :data:`JUDGED` / :data:`UNJUDGED`.
        """
        if not isinstance(data, dict):
            raise ValueError(f"a verdict is a JSON object, not {type(data).__name__}")
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        check_field_types(cls, known, "a verdict")
        if "status" not in known:
            raise ValueError(f"a verdict needs a status ({JUDGED!r} or {UNJUDGED!r}); got keys {sorted(data)}")
        for name, empty in _EMPTY.items():
            known.setdefault(name, empty() if callable(empty) else empty)
        if known["status"] != JUDGED and not known.get("reason_code"):
            known["reason_code"] = code_from_reason(known.get("reason"))
        return cls(**known)

    @classmethod
    def from_label_row(cls, data: dict[str, Any]) -> Verdict | None:
        """A row of a labels file (``uta-annotate``'s export, or verdicts written by another
        tool) as a verdict: a row without ``status`` is judged (a human label has none).

        Args:
            data: the row (``label``, ``genuine``, optional ``status``, other keys ignored).

        Returns:
            The verdict, or None when the row's status is neither :data:`JUDGED` nor
            :data:`UNJUDGED` (such a row carries no label to compare).
        """
        status = data.get("status", JUDGED)
        if status not in STATUSES:
            return None
        return cls.from_dict({**data, "status": status})

    @classmethod
    def decode(cls, data: Verdict | dict[str, Any] | None) -> Verdict | None:
        """:meth:`from_dict` of a verdict slot that may be empty (None) or decoded already.

        Args:
            data: the slot's value.
        """
        if data is None or isinstance(data, Verdict):
            return data
        return cls.from_dict(data)
