"""What one uta request carries (:class:`ProbeSpec`) and what it returns (:class:`ProbeRecord`).

An lm-eval ``Instance`` of request type ``generate_user_turn`` has
``arguments = (q, gen_kwargs, spec)``: ``q`` the user turn (lm-eval hashes it as the
prompt), ``gen_kwargs`` the task's ``generation_kwargs`` after ``--gen_kwargs`` were merged
in, and ``spec`` a :class:`ProbeSpec` as a plain dict (lm-eval logs the arguments).

The spec's judge settings are a typed value (:class:`JudgeConfig`), parsed once per task
by the judge layer (:class:`uta_tasks.judge.JudgeSettings`, which this bottom layer does not
import); the spec logs them by their ``to_dict``, which holds no secret (the API key is
read from the environment when the judge's client is built, never stored), and the hook
rebuilds them with the decoder it passes to :meth:`ProbeSpec.from_dict`.

The hook answers each request with a :class:`ProbeRecord` as a JSON string; decode a
logged sample with ``ProbeRecord.from_json(sample["resps"][0][0])`` (lm-eval's raw response;
``filtered_resps`` holds the record for lm-eval's metrics in memory and logs only where it is,
:data:`FILTERED_RECORD`). Since version 4 each text is written once
(:mod:`uta_tasks.schema.record_texts`); ``from_json`` reads every version. The field
list of both classes is the schema; ``RECORD_VERSION`` changes with it (see the manual's
"Logged fields"). The verdict slots hold :class:`~uta_tasks.schema.verdict.Verdict`
objects; ``to_json`` writes them as ``Verdict.to_dict`` does, so the logged JSON is the
same as when they were plain dicts. The hook and the judge build records as values
(``dataclasses.replace`` with the user turns, then with the verdicts), never by field name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from typing import Any, Literal, Protocol

from uta_tasks.schema.field_types import check_field_types
from uta_tasks.schema.record_texts import compact, expand
from uta_tasks.schema.record_texts import question_text as question_text
from uta_tasks.schema.verdict import Verdict

REQUEST_TYPE = "generate_user_turn"
# The record's verdict slots (field names): u after a', u_ref after the unperturbed history,
# and (held-out) the real next user turn.
VERDICT = "verdict"
VERDICT_REF = "verdict_ref"
VERDICT_REFERENCE = "verdict_reference"
VERDICT_SLOTS: tuple[str, ...] = (VERDICT, VERDICT_REF, VERDICT_REFERENCE)
RECORD_VERSION = 4
# What a logged line's ``filtered_resps`` holds for each repeat since version 4: where its record
# is (lm-eval's raw response), not a second copy of it.
FILTERED_RECORD = "resps[0][{repeat}]"
# What records written before version 3 did (they carry no pass2_context or truncate_scope).
LEGACY_DEFAULTS = {"pass2_context": "template", "truncate_scope": "final_answer"}

# ``answers_from``: the saved prompt is pass 1; the probe's own rendering of the document is a
# check whose outcome each record keeps (``answer_source.prompt_check.rendered``).
PromptCheck = Literal["equal", "differs"]
PROMPT_EQUAL: PromptCheck = "equal"
PROMPT_DIFFERS: PromptCheck = "differs"
# ``prompt_mismatch``: a saved prompt the probe would not have written is recorded, or refused.
PROMPT_MISMATCH_CHOICES = ("record", "refuse")
# ``answers_from``: what pass 1 did with a saved answer (``answer_source.completion``): used as the
# saved run logged it; continued from its text because the saved run stopped at a string that is not
# the model's end of turn; continued because it ran into the saved run's token budget.
SavedCompletion = Literal["as_saved", "after_stop", "after_budget"]
COMPLETION_AS_SAVED: SavedCompletion = "as_saved"
COMPLETION_AFTER_STOP: SavedCompletion = "after_stop"
COMPLETION_AFTER_BUDGET: SavedCompletion = "after_budget"
# ``answers_from``: which harness wrote the saved run (lm-eval's --log_samples, an inspect_ai eval
# log, lighteval's --save-details parquet, HELM's scenario_state.json).
SavedKind = Literal["lm_eval", "inspect", "lighteval", "helm"]
SAVED_LM_EVAL: SavedKind = "lm_eval"
SAVED_INSPECT: SavedKind = "inspect"
SAVED_LIGHTEVAL: SavedKind = "lighteval"
SAVED_HELM: SavedKind = "helm"
#: ``pass2_context``: the paper's pass 2 on the whole turn (``trace``), and the rendered-history
#: ablation (``template``; :mod:`uta_tasks.probe.trace`)
Pass2Context = Literal["trace", "template"]
PASS2_CONTEXTS: tuple[Pass2Context, ...] = ("trace", "template")
# ``answers_from_settings``: what the saved run used that its log does not record, stated by the
# user (never guessed): the generation settings, as --gen_kwargs names them, and the model, as
# --model_args pretrained= names it.
ANSWERS_FROM_SETTINGS_KEYS = ("temperature", "max_gen_toks", "until", "model")

# Token limit of the user turn: a metadata setting, not a generation kwarg, because
# lm-eval applies --gen_kwargs to every generate_until task of the run.
DEFAULT_USER_MAX_GEN_TOKS = 512


class JudgeConfig(Protocol):
    """The judge settings a :class:`ProbeSpec` carries, parsed once per task (the judge
    layer's :class:`uta_tasks.judge.JudgeSettings` is one)."""

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON types, as lm-eval logs them with the spec: no secret."""
        ...


# Rebuilds a spec's judge settings from their logged dict (``JudgeSettings.from_dict``).
JudgeDecoder = Callable[[Mapping[str, Any]], JudgeConfig]


_DECODED = VERDICT_SLOTS  # decoded by Verdict.decode, which checks its own fields
# Written even when they hold their default: their absence means an older record (LEGACY_DEFAULTS).
_ALWAYS_WRITTEN = frozenset({*LEGACY_DEFAULTS, "record_version"})


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


@dataclass(frozen=True)
class FilteredRecord:
    """One repeat's response as the uta tasks' lm-eval filter passes it to ``process_results``:
    the record's JSON in memory; lm-eval logs ``str()`` of it, which says where that JSON is
    (:data:`FILTERED_RECORD`), so a samples line holds the record once, in ``resps``.

    Attributes:
        text: the record's JSON (the hook's response).
        repeat: the repeat's index.
    """

    text: str
    repeat: int

    def __str__(self) -> str:
        return FILTERED_RECORD.format(repeat=self.repeat)


@dataclass(frozen=True)
class SavedAnswer:
    """A document's pass-1 answer read from a saved run (``answers_from``), with what the probe
    checks it against before generating.

    Attributes:
        doc_id: the document's index in the saved run.
        prompt: the prompt the saved run sent (lm-eval's ``arguments``, or the record's
            ``pass1_prompt``).
        text: the saved response (lm-eval's ``resps``, or the record's ``a``).
        gen_kwargs: the saved run's generation settings of that request (its ``until`` says
            whether the response may have been cut at a stop string).
        scores: the saved run's own per-document scores (``metric_filter`` -> value).
        source: where it came from: ``{path, model, lm_eval_version, config_digest, samples,
            reasoning_stripped}``.
        reasoning_stripped: the saved run cut the reasoning out of the response before logging
            it (``think_end_token``): ``text`` is the final answer only, not the model's whole turn.
        messages: the chat messages the model was sent, for a harness that logs messages rather
            than the rendered prompt (an inspect_ai log): the probe renders them with the model's
            chat template into ``prompt`` before pass 1 (None: ``prompt`` is as sent).
        prompt_tokens: the token ids sent, for a harness that logs them rather than the prompt's
            text (lighteval's transformers backend): the probe decodes them with the model's
            tokenizer into ``prompt`` before pass 1 (None: ``prompt`` is as sent).
        padded_tokens: how many of ``prompt_tokens`` are the batch's left padding, as the harness
            recorded it (lighteval's ``padded_tokens_count``; None: not recorded): the probe
            checks they are the pad token and leaves them out of the prompt.
    """

    doc_id: int
    prompt: str
    text: str
    gen_kwargs: dict[str, Any]
    scores: dict[str, Any]
    source: dict[str, Any]
    reasoning_stripped: bool = False
    messages: list[dict[str, Any]] | None = None
    prompt_tokens: list[int] | None = None
    padded_tokens: int | None = None


@dataclass(frozen=True)
class ProbeSpec:
    """One uta request, built by the task from a doc and its settings.

    Attributes:
        task: lm-eval task name.
        benchmark: key of ``uta_tasks.datasets.BENCHMARKS``.
        perturbation: a registered perturbation (``none``, ``trunc``, ``question``, ...;
            ``uta_tasks.probe.perturbations``).
        messages: chat messages up to and including the user turn q.
        role_switch: the ``role_switch`` setting.
        question_seed: the ``question_seed`` setting.
        user_max_gen_toks: the ``user_max_gen_toks`` setting.
        judge: the judge settings, parsed once per task, or None when the judge is off.
        given_answer: held-out only: the real assistant turn (pass 1 is skipped).
        reference_user_turn: held-out only: the real next user turn.
        overlong: ``error`` or ``drop``: what an over-long prompt does.
        question_pool: the cue pool of ``question`` tasks.
        pass2_context: ``trace`` (the paper: pass-1 prompt + a' + marker + user header) or
            ``template`` (re-render ``[q, a']`` through the chat template).
        truncate_scope: ``response`` (trunc counts and cuts every token of a, reasoning
            included) or ``final_answer`` (the final answer only).
        user_samples: user turns generated per (q, a') (k of pass@k; 1 = the paper).
        saved: ``answers_from``: the saved answer pass 1 takes instead of generating one.
        user_temperature: pass 2's temperature when it differs from pass 1's (None: the same).
        prompt_mismatch: ``answers_from``: ``record`` (the saved prompt is pass 1 whatever the
            probe would render) or ``refuse`` (a saved prompt the probe would not write is refused).
    """

    task: str
    benchmark: str
    perturbation: str
    messages: list[dict]
    role_switch: str = "auto"
    question_seed: int = 0
    user_max_gen_toks: int = DEFAULT_USER_MAX_GEN_TOKS
    judge: JudgeConfig | None = None
    given_answer: str | None = None
    reference_user_turn: str | None = None
    overlong: str = "error"
    question_pool: str = "question_pool_v2"
    pass2_context: str = "trace"
    truncate_scope: str = "response"
    user_samples: int = 1
    saved: SavedAnswer | None = None
    prompt_mismatch: str = PROMPT_MISMATCH_CHOICES[0]
    user_temperature: float | None = None

    @property
    def q(self) -> str:
        """The user turn q."""
        return question_text(self.messages)

    @property
    def perturbed(self) -> bool:
        """True for every perturbation but ``none`` (such tasks also produce u_ref)."""
        return self.perturbation != "none"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (the Instance argument lm-eval logs; the judge settings
        as their ``to_dict``, which holds no secret); a setting at its default is left out
        (:meth:`from_dict` restores it), the judge settings never."""
        data = asdict(replace(self, judge=None))
        for spec in fields(self):
            if spec.name != "judge" and spec.default is not MISSING and data.get(spec.name) == spec.default:
                del data[spec.name]
        data["judge"] = None if self.judge is None else self.judge.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any] | ProbeSpec, judge: JudgeDecoder | None = None) -> ProbeSpec:
        """Rebuild from :meth:`to_dict` (a spec passes through).

        Args:
            data: the dict.
            judge: rebuilds the judge settings from their dict (``JudgeSettings.from_dict``);
                needed when the dict carries judge settings.

        Raises:
            ValueError: the dict carries judge settings and no ``judge`` decoder is given.
        """
        if isinstance(data, ProbeSpec):
            return data
        known = _known(cls, data)
        raw = known.get("judge")
        if raw is not None:
            if judge is None:
                raise ValueError(
                    f"{known.get('task', '?')}: the spec carries judge settings; rebuild it with "
                    "ProbeSpec.from_dict(data, judge=JudgeSettings.from_dict)"
                )
            known["judge"] = judge(raw)
        if isinstance(known.get("saved"), dict):
            known["saved"] = SavedAnswer(**_known(SavedAnswer, known["saved"]))
        return cls(**known)


@dataclass(slots=True)
class ProbeRecord:
    """Everything the probe produced for one request (one repeat of one doc).

    Attributes:
        task: lm-eval task name.
        benchmark: benchmark key.
        perturbation: a registered perturbation (``none``, ``trunc``, ``question``, ...;
            ``uta_tasks.probe.perturbations``).
        q: the user turn q.
        messages: chat messages up to q.
        pass1_prompt: the rendered pass-1 prompt (None when held-out).
        a: the pass-1 generation as returned (reasoning included).
        answer: the final answer, reasoning removed (scored for accuracy).
        reasoning_form: ``think``, ``harmony`` or ``plain``.
        history: the assistant turn as the pass-2 history carries it, before perturbation.
        a_prime: a' (history perturbed).
        truncation: ``{scope, n_tokens, removed_tokens, emptied}`` for trunc tasks, else None.
        cue: the appended question (question tasks), else None.
        question_pool: the pool the cue was drawn from (question tasks), else None.
        role_switch: ``{name, history, stop}``.
        generation: ``{assistant: gen_kwargs, user: gen_kwargs}`` as sent.
        given_answer: True when a came from the data (held-out).
        reference_user_turn: held-out: the real next user turn.
        pass2_prompt: the rendered pass-2 prompt (history a' plus user header).
        pass2_ref_prompt: perturbed tasks: the pass-2 prompt on the unperturbed history.
        u: the generated user turn after a'.
        u_ref: perturbed tasks: the user turn after the unperturbed history (else = u).
        verdict: the judge's verdict on u, or None when not judged.
        verdict_ref: perturbed tasks: the verdict on u_ref.
        verdict_reference: held-out: the verdict on the real next user turn.
        judge_usage: ``{calls, cache_hits, input_tokens, output_tokens}`` for this record.
        answer_incomplete: the reasoning never closed, or pass 1 stopped at its token budget
            (scored wrong; see docs/reasoning-models.md).
        overlong: ``pass1`` or ``pass2`` when that prompt did not fit and the doc was
            dropped (``overlong: drop``), else None.
        budget: the ``max_gen_toks`` sent per pass, after fitting the prompt into the model.
        pass2_context: ``trace`` or ``template`` (how pass 2 was built).
        truncate_scope: ``response`` or ``final_answer`` (what trunc counts and cuts).
        join: trace mode: ``{marker, header}`` appended after a', read from the model's template.
        u_samples: ``user_samples > 1``: every user turn generated after a' (u is the first).
        verdict_samples: the verdict of each of ``u_samples`` (the first is ``verdict``).
        answer_source: ``answers_from``: where a came from (``path``, ``model``,
            ``lm_eval_version``, ``config_digest``, ``samples``, ``doc_id``), what pass 1 did with
            it (``completion``: :data:`SavedCompletion`), its ``saved_tokens`` and the
            ``tokens_added`` to complete it; None when pass 1 generated a.
        record_version: schema version of this record.
    """

    task: str
    benchmark: str
    perturbation: str
    q: str
    messages: list[dict]
    a: str
    answer: str
    reasoning_form: str
    history: str
    a_prime: str
    role_switch: dict[str, Any]
    generation: dict[str, Any]
    given_answer: bool
    pass1_prompt: str | None = None
    truncation: dict[str, Any] | None = None
    cue: str | None = None
    question_pool: str | None = None
    reference_user_turn: str | None = None
    pass2_prompt: str = ""
    pass2_ref_prompt: str | None = None
    u: str = ""
    u_ref: str = ""
    verdict: Verdict | None = None
    verdict_ref: Verdict | None = None
    verdict_reference: Verdict | None = None
    judge_usage: dict[str, int] | None = None
    answer_incomplete: bool = False
    overlong: str | None = None
    budget: dict[str, int] = field(default_factory=dict)
    pass2_context: str = "trace"
    truncate_scope: str = "response"
    join: dict[str, str] | None = None
    u_samples: list[str] = field(default_factory=list)
    verdict_samples: list[Verdict | None] = field(default_factory=list)
    answer_source: dict[str, Any] | None = None
    record_version: int = field(default=RECORD_VERSION)

    @property
    def perturbed(self) -> bool:
        """True for every perturbation but ``none``."""
        return self.perturbation != "none"

    def verdicts(self) -> dict[str, Verdict | None]:
        """The three verdict slots by field name."""
        return {VERDICT: self.verdict, VERDICT_REF: self.verdict_ref, VERDICT_REFERENCE: self.verdict_reference}

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON types (each verdict as :meth:`Verdict.to_dict`)."""
        data = asdict(self)
        for name, verdict in self.verdicts().items():
            data[name] = None if verdict is None else verdict.to_dict()
        data["verdict_samples"] = [None if v is None else v.to_dict() for v in self.verdict_samples]
        return data

    def to_json(self) -> str:
        """The JSON string lm-eval logs as the response: each text once
        (:func:`uta_tasks.schema.record_texts.compact`), each verdict without what
        :meth:`Verdict.from_dict` restores (:meth:`Verdict.to_stored_dict`), and no field that
        holds its default; :meth:`from_json` reads it back whole."""
        data = {spec.name: getattr(self, spec.name) for spec in fields(self)}  # read, never changed, by compact
        for name, verdict in self.verdicts().items():
            data[name] = None if verdict is None else verdict.to_stored_dict()
        data["verdict_samples"] = [None if v is None else v.to_stored_dict() for v in self.verdict_samples]
        data = compact(data)
        for spec in fields(self):
            if spec.name not in _ALWAYS_WRITTEN and spec.default is not MISSING and data.get(spec.name) == spec.default:
                del data[spec.name]
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | dict[str, Any] | FilteredRecord) -> ProbeRecord:
        """Decode a logged response (records of version 1 lack ``history``; it is
        rebuilt from the role switch as the hook built it; records before version 3 lack
        ``pass2_context`` and ``truncate_scope`` and get what the probe did then:
        :data:`LEGACY_DEFAULTS`; texts written by reference, version 4, are rebuilt by
        :func:`uta_tasks.schema.record_texts.expand`).

        Args:
            text: the JSON string (or its decoded dict, or the filter's :class:`FilteredRecord`).
        """
        if isinstance(text, FilteredRecord):
            text = text.text
        data = expand(json.loads(text) if isinstance(text, str) else dict(text))
        check_field_types(cls, {k: v for k, v in data.items() if k not in _DECODED}, "a probe record")
        if "history" not in data:
            raw = (data.get("role_switch") or {}).get("history") == "raw"
            data["history"] = data.get("a", "") if raw else data.get("answer", "")
        for key, value in LEGACY_DEFAULTS.items():
            data.setdefault(key, value)
        for name in VERDICT_SLOTS:
            data[name] = Verdict.decode(data.get(name))
        data["verdict_samples"] = [Verdict.decode(v) for v in data.get("verdict_samples") or []]
        return cls(**_known(cls, data))
