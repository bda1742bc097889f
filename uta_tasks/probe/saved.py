"""Pass 1 from a saved run (``answers_from``): the saved prompt is pass 1, the checks before
anything generates, and the completion of answers the saved run cut at a stop string.

The task reads each document's :class:`~uta_tasks.schema.probe.SavedAnswer` when lm-eval
builds it (:mod:`uta_tasks.runs.saved_answers` refuses a run without samples, a document it
lacks, another model, stripped reasoning). The model saw the saved prompt, whatever wrote it
(few-shot examples, a fork's task version, ``--system_instruction``), so that prompt is pass 1,
character for character, and pass 2 is built on it. What needs the model's tokenizer is checked
here, for every request, before the first generation:

- the saved prompt carries the model's chat template: its last role header is the assistant's
  (else there is no assistant turn to switch from, and it is refused);
- the probe's own rendering of the document is compared with it, and the outcome kept in the
  record (``prompt_check``); ``prompt_mismatch: refuse`` refuses a difference instead;
- the saved run sampled at the probe's temperature (the paper uses one for both passes);
- the saved answer was not cut by its length budget (``overlong: drop`` drops the document
  and counts it in ``overlong``).

lm-eval cuts each response at the task's ``until``; the paper's trace is the model's whole
turn. When the saved run stopped at a string that is not the end of turn, every saved answer
is continued from its own text (pass-1 prompt + saved text, the probe's stop strings), with the
budget a full run of the task would have left it: the pass-1 budget fitted to the model's
maximum length as for a generated answer, less the saved text's tokens. A completion that uses
all of it is flagged incomplete, as a full run flags an answer that ran out. An answer the model
had ended adds only its end of turn. A response whose reasoning the saved run stripped
(``think_end_token``) is used as logged: the model never wrote its final answer after the pass-1
prompt alone, so there is nothing to continue from (it runs as the rendered-history ablation,
:mod:`uta_tasks.runs.saved_answers`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from uta_tasks.probe import budget
from uta_tasks.probe.backend import Backend, temperature
from uta_tasks.probe.role_switch import RoleSwitch
from uta_tasks.schema.probe import PROMPT_DIFFERS, PROMPT_EQUAL, ProbeSpec, SavedAnswer

#: lm-eval's max_gen_toks when a task sets none
LM_EVAL_MAX_GEN_TOKS = 256
_SHOWN = 60


class Request(Protocol):
    """What this module reads of the hook's resolved request."""

    @property
    def spec(self) -> ProbeSpec: ...

    @property
    def switch(self) -> RoleSwitch: ...

    @property
    def assistant_kwargs(self) -> dict: ...

    @property
    def saved_check(self) -> SavedCheck | None: ...


class SavedAnswerError(RuntimeError):
    """A saved answer cannot stand for the probe's pass 1; the message names the task, the
    document and the fix."""


def _tokens(tokenizer: Any, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def _hint(saved: str, ours: str, switch_stop: tuple[str, ...]) -> str:
    """The setting that most likely explains two different prompts."""
    header = next((s for s in switch_stop if s and s in ours), None)
    if header and header not in saved:
        return ("the saved run sent the prompt without the chat template: run it with --apply_chat_template "
                "(the probe always applies the model's own template)")
    if saved.count(header or "\0") != ours.count(header or "\0"):
        return ("the two prompts hold different numbers of turns: another few-shot count (set uta_num_fewshot to the "
                "saved run's --num_fewshot, and uta_fewshot_as_multiturn to its --fewshot_as_multiturn) or another "
                "--system_instruction")
    return ("another few-shot draw (uta_fewshot_seed = the saved run's --fewshot_seed), another --system_instruction, "
            "another chat template (chat_template_args, enable_thinking), or another document")


def _first_difference(saved: str, ours: str) -> int:
    return next((i for i, (a, b) in enumerate(zip(saved, ours)) if a != b), min(len(saved), len(ours)))


def _mismatch(task: str, saved: SavedAnswer, ours: str, stop: tuple[str, ...]) -> SavedAnswerError:
    at = _first_difference(saved.prompt, ours)
    return SavedAnswerError(
        f"{task}: document {saved.doc_id}: the saved prompt ({saved.source.get('samples')}) differs from the probe's "
        f"pass-1 prompt at character {at}: saved {saved.prompt[at:at + _SHOWN]!r}, probe {ours[at:at + _SHOWN]!r}. "
        f"Likely cause: {_hint(saved.prompt, ours, stop)}. With prompt_mismatch=record (the default) the saved "
        "prompt is pass 1 and the difference is recorded"
    )


def _require_chat_template(spec: ProbeSpec, saved: SavedAnswer, switch: RoleSwitch) -> None:
    """Refuse a saved prompt whose last role header is not the model's assistant header: it was
    not rendered with the model's chat template, so there is no assistant turn to switch from."""
    header = switch.assistant_header()
    if not header:
        return
    at = saved.prompt.rfind(header)
    if at >= 0 and not any(stop and stop in saved.prompt[at + len(header):] for stop in switch.stop):
        return
    raise SavedAnswerError(
        f"{spec.task}: document {saved.doc_id}: the saved prompt ({saved.source.get('samples')}) does not end in the "
        f"model's assistant header {header!r}: it was not rendered with the model's chat template, so the answer is "
        f"not an assistant turn and there is no role to switch from (it ends {saved.prompt[-_SHOWN:]!r}). Save the "
        "run again with --apply_chat_template (lm-eval), or with the model's chat template in the other harness"
    )


@dataclass(frozen=True)
class SavedCheck:
    """What :func:`check` found of one saved answer.

    Attributes:
        cut: its length budget cut the saved answer (``overlong: drop`` drops the document).
        prompt_check: the probe's own rendering against the saved prompt, as the record keeps it:
            ``{rendered: equal|differs, first_difference, likely_cause}``.
    """

    cut: bool
    prompt_check: dict[str, Any]


def check(request: Request, tokenizer: Any) -> SavedCheck:
    """Refuse a saved answer that cannot stand for pass 1, and compare its prompt with the probe's
    own rendering.

    Args:
        request: a resolved request with ``spec.saved``.
        tokenizer: the model's tokenizer.
    """
    spec, saved = request.spec, request.spec.saved
    assert saved is not None
    _require_chat_template(spec, saved, request.switch)
    ours = request.switch.assistant_prompt(spec.messages)
    if saved.prompt == ours:
        prompt_check: dict[str, Any] = {"rendered": PROMPT_EQUAL, "first_difference": None, "likely_cause": None}
    elif spec.prompt_mismatch == "refuse":
        raise _mismatch(spec.task, saved, ours, request.switch.stop)
    else:
        prompt_check = {"rendered": PROMPT_DIFFERS, "first_difference": _first_difference(saved.prompt, ours),
                        "likely_cause": _hint(saved.prompt, ours, request.switch.stop)}
    theirs, mine = temperature(saved.gen_kwargs), temperature(request.assistant_kwargs)
    if theirs != mine:
        raise SavedAnswerError(
            f"{spec.task}: document {saved.doc_id}: the saved run sampled at temperature {theirs}, the probe at {mine}; "
            f"the paper uses one temperature for the answer and the user turn. Run the probe with --gen_kwargs "
            f"temperature={theirs} (do_sample={'False' if theirs == 0 else 'True'}) and, to sample only the user turn "
            f"at {mine}, --metadata '{{\"user_temperature\": {mine}}}' (not comparable with the paper), or save a run "
            f"at {mine}"
        )
    limit = int(saved.gen_kwargs.get("max_gen_toks", LM_EVAL_MAX_GEN_TOKS))
    if _tokens(tokenizer, saved.text) < limit:
        return SavedCheck(False, prompt_check)
    if spec.overlong == "drop":
        return SavedCheck(True, prompt_check)
    raise SavedAnswerError(
        f"{spec.task}: document {saved.doc_id}: the saved answer ran into its length budget (max_gen_toks={limit}), so "
        "it is not the model's whole turn. Save the run again with a larger --gen_kwargs max_gen_toks, or pass "
        "--metadata '{\"overlong\": \"drop\"}' to drop and count such documents"
    )


def _extra_stops(request: Request, tokenizer: Any) -> list[str]:
    """The saved run's stop strings that are not the end of the turn the probe stops at."""
    saved = request.spec.saved
    assert saved is not None
    until = saved.gen_kwargs.get("until") or []
    until = [until] if isinstance(until, str) else list(until)
    ends = {*request.assistant_kwargs.get("until", []), *request.switch.stop, getattr(tokenizer, "eos_token", None)}
    return [s for s in until if s and s not in ends]


@dataclass(frozen=True)
class Completed:
    """Pass 1 of the saved answers.

    Attributes:
        answers: request index -> the whole answer (saved text + what was generated).
        sources: request index -> the record's ``answer_source``.
        dropped: request indices whose saved answer its length budget cut (``overlong: drop``).
        ran_out: request indices whose completion used all the budget a full run would have had
            (the answer is incomplete, as a generated one that ran out is).
    """

    answers: dict[int, str]
    sources: dict[int, dict[str, Any]]
    dropped: set[int]
    ran_out: set[int]


def complete(backend: Backend, requests: Sequence[Request], tokenizer: Any,
             fitted: dict[int, budget.Fitted]) -> Completed:
    """The whole answer of every request with a saved answer, generating only what a stop string cut.

    Args:
        backend: the batched backend.
        requests: the resolved requests (those without ``spec.saved`` are skipped).
        tokenizer: the model's tokenizer.
        fitted: request index -> the pass-1 budget of its saved prompt, fitted to the model's
            maximum length as for a generated answer (what a full run would have given it).
    """
    answers: dict[int, str] = {}
    sources: dict[int, dict[str, Any]] = {}
    dropped: set[int] = set()
    ran_out: set[int] = set()
    todo: list[tuple[int, str, dict]] = []
    for i, request in enumerate(requests):
        saved = request.spec.saved
        if saved is None:
            continue
        answers[i] = saved.text
        checked = request.saved_check
        sources[i] = {**saved.source, "doc_id": saved.doc_id, "tokens_added": 0, "saved_scores": saved.scores,
                      "prompt_check": checked.prompt_check if checked is not None else None}
        if checked is not None and checked.cut:
            dropped.add(i)
            continue
        fit = fitted.get(i)
        if saved.reasoning_stripped or fit is None or fit.gen_kwargs is None or not _extra_stops(request, tokenizer):
            continue
        left = fit.budget - _tokens(tokenizer, saved.text)
        if left < 1:
            ran_out.add(i)
            continue
        todo.append((i, saved.prompt + saved.text, {**fit.gen_kwargs, "max_gen_toks": left}))
    if todo:
        outputs = backend.generate([(prompt, kwargs) for _, prompt, kwargs in todo], name="completion")
        for (i, _, kwargs), text in zip(todo, outputs, strict=True):
            answers[i] += text
            sources[i]["tokens_added"] = added = _tokens(tokenizer, text) if text else 0
            if added >= kwargs["max_gen_toks"]:
                ran_out.add(i)
    return Completed(answers, sources, dropped, ran_out)
