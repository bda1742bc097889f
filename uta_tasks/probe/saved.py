"""Pass 1 from a saved run (``answers_from``): the saved prompt is pass 1, the checks before
anything generates, and the completion of answers that are not the model's whole turn.

The task reads each document's :class:`~uta_tasks.schema.probe.SavedAnswer` when lm-eval
builds it (:mod:`uta_tasks.saved_answers.load` refuses a run without samples, a document it
lacks, another model, stripped reasoning). The model saw the saved prompt, whatever wrote it
(few-shot examples, a fork's task version, ``--system_instruction``), so that prompt is pass 1,
character for character, and pass 2 is built on it. What needs the model's tokenizer is checked
here, for every request, before the first generation:

- the saved prompt carries the model's chat template: its last role header is the assistant's
  (else there is no assistant turn to switch from, and it is refused);
- the probe's own rendering of the document is compared with it, and the outcome kept in the
  record (``prompt_check``); ``prompt_mismatch: refuse`` refuses a difference instead;
- the saved run sampled at the probe's temperature (the paper uses one for both passes);
- the saved answer's tokens against the saved run's budget (``max_gen_toks``).

The paper's trace is the model's whole turn (seeds/paper-summary.txt, generation steps: pass 2
appends the user header to the existing trace). A saved answer may not be one, for two reasons,
and a full run of the probe's task would have written it whole in both: lm-eval cut it at one
of the task's stop strings (``until``), or it ran into the saved run's token budget. Such an
answer is continued from its own text (pass-1 prompt + saved text, the probe's stop strings),
with the budget a full run of the task would have left it: the pass-1 budget fitted to the
model's maximum length as for a generated answer, less the saved text's tokens. One decision,
:func:`continuation`, says what happens to each answer; ``--plan`` asks it too. Where the probe's
budget is no larger than the saved run's (``--gen_kwargs max_gen_toks=N``), a budget-cut answer
is used as saved and flagged incomplete, as a full run flags an answer that ran out; so is a
completion that uses all of its budget. An answer the model had ended adds only its end of turn.
A response whose reasoning the saved run stripped (``think_end_token``) is used as logged: the
model never wrote its final answer after the pass-1 prompt alone, so there is nothing to continue
from (it runs as the rendered-history ablation, :mod:`uta_tasks.saved_answers.load`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from uta_tasks.probe import budget
from uta_tasks.probe.backend import Backend, temperature
from uta_tasks.probe.role_switch import RoleSwitch
from uta_tasks.schema.generation import is_greedy
from uta_tasks.schema.probe import (
    COMPLETION_AFTER_BUDGET,
    COMPLETION_AFTER_STOP,
    COMPLETION_AS_SAVED,
    PROMPT_DIFFERS,
    PROMPT_EQUAL,
    ProbeSpec,
    SavedAnswer,
    SavedCompletion,
)

log = logging.getLogger(__name__)

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
        prompt_check: the probe's own rendering against the saved prompt, as the record keeps it:
            ``{rendered: equal|differs, first_difference, likely_cause}``.
        saved_tokens: the saved response's tokens (the model's tokenizer, no special tokens).
        saved_budget: the saved run's ``max_gen_toks`` for the request (lm-eval's default without one).
        dropped: the saved answer ran into that budget and ``overlong: drop`` drops the document.
    """

    prompt_check: dict[str, Any]
    saved_tokens: int
    saved_budget: int
    dropped: bool = False

    @property
    def budget_hit(self) -> bool:
        """The saved answer ran into the saved run's token budget: it is not the model's whole turn."""
        return self.saved_tokens >= self.saved_budget


def check(request: Request, tokenizer: Any) -> SavedCheck:
    """Refuse a saved answer that cannot stand for pass 1, compare its prompt with the probe's
    own rendering, and measure the answer against the saved run's budget.

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
    found = SavedCheck(prompt_check, _tokens(tokenizer, saved.text), saved_budget(saved))
    return replace(found, dropped=found.budget_hit and spec.overlong == "drop")


def saved_budget(saved: SavedAnswer) -> int:
    """The saved run's ``max_gen_toks`` for this answer (lm-eval's default when it logged none)."""
    return int(saved.gen_kwargs.get("max_gen_toks", LM_EVAL_MAX_GEN_TOKS))


def _extra_stops(request: Request, tokenizer: Any) -> list[str]:
    """The saved run's stop strings that are not the end of the turn the probe stops at."""
    saved = request.spec.saved
    assert saved is not None
    until = saved.gen_kwargs.get("until") or []
    until = [until] if isinstance(until, str) else list(until)
    ends = {*request.assistant_kwargs.get("until", []), *request.switch.stop, getattr(tokenizer, "eos_token", None)}
    return [s for s in until if s and s not in ends]


@dataclass(frozen=True)
class Continuation:
    """What pass 1 does with one saved answer, decided before anything generates (the run and
    ``--plan`` both ask :func:`continuation`).

    Attributes:
        kind: used as saved, continued after a stop string, or continued after the saved budget.
        budget: the tokens its completion may add: the pass-1 budget a full run of the probe's
            task gives the prompt (fitted to the model), less the saved answer's tokens (0: nothing
            is generated).
        incomplete: the answer is used as saved although the model had not ended it: the probe's
            budget is no larger than what the saved answer already holds, so a full run would have
            stopped it there too (the record is flagged ``answer_incomplete``).
    """

    kind: SavedCompletion
    budget: int = 0
    incomplete: bool = False


def continuation(request: Request, tokenizer: Any, fitted: budget.Fitted | None) -> Continuation:
    """One saved answer's continuation.

    Args:
        request: a resolved request with ``spec.saved`` and its ``saved_check``.
        tokenizer: the model's tokenizer.
        fitted: the pass-1 budget of its saved prompt, fitted to the model as for a generated
            answer (None, or no settings: the document is dropped).
    """
    saved, checked = request.spec.saved, request.saved_check
    assert saved is not None and checked is not None
    if fitted is None or fitted.gen_kwargs is None or checked.dropped:
        return Continuation(COMPLETION_AS_SAVED)
    if checked.budget_hit:
        kind = COMPLETION_AFTER_BUDGET
    elif _extra_stops(request, tokenizer):
        kind = COMPLETION_AFTER_STOP
    else:
        return Continuation(COMPLETION_AS_SAVED)
    left = fitted.budget - checked.saved_tokens
    if saved.reasoning_stripped:  # the final answer alone: the model never wrote it after the prompt
        return Continuation(COMPLETION_AS_SAVED, 0, checked.budget_hit)
    if left < 1 or (kind == COMPLETION_AFTER_BUDGET and fitted.budget <= checked.saved_budget):
        return Continuation(COMPLETION_AS_SAVED, 0, True)
    return Continuation(kind, left)


@dataclass(frozen=True)
class Completed:
    """Pass 1 of the saved answers.

    Attributes:
        answers: request index -> the whole answer (saved text + what was generated).
        sources: request index -> the record's ``answer_source``.
        dropped: request indices whose saved answer its length budget cut (``overlong: drop``).
        ran_out: request indices whose answer is not whole: its completion used all the budget a
            full run would have had, or the probe's budget left nothing to continue it with.
        completion_kwargs: request index -> the settings its completion was sent with.
    """

    answers: dict[int, str]
    sources: dict[int, dict[str, Any]]
    dropped: set[int]
    ran_out: set[int]
    completion_kwargs: dict[int, dict[str, Any]]


def generations(completions: Sequence[tuple[str, dict[str, Any], int]]) -> list[int]:
    """The budget of each completion the backend generates, as :class:`~uta_tasks.probe.backend.Backend`
    merges them: identical greedy requests once, sampled ones every time.

    Args:
        completions: ``(prompt, gen_kwargs, times)`` per request (``times``: its repeats).
    """
    greedy: dict[str, int] = {}
    sampled: list[int] = []
    for prompt, kwargs, times in completions:
        if is_greedy(kwargs):
            greedy[json.dumps([prompt, kwargs], sort_keys=True)] = int(kwargs["max_gen_toks"])
        else:
            sampled += [int(kwargs["max_gen_toks"])] * times
    return [*greedy.values(), *sampled]


def describe(plans: Sequence[Continuation], budgets: Sequence[int]) -> str | None:
    """One line on the completions about to run (None when there are none): how many answers,
    after what, the generations they take and the most tokens those may add.

    Args:
        plans: the continuation of each saved answer.
        budgets: the budget of each completion the backend generates (greedy: identical requests once).
    """
    todo = [p for p in plans if p.budget > 0]
    if not todo:
        return None
    stop = sum(p.kind == COMPLETION_AFTER_STOP for p in todo)
    return (f"completing {len(todo)} of {len(plans)} saved answers ({stop} cut at a stop string, {len(todo) - stop} "
            f"at the saved run's token budget) in {len(budgets)} generations, each up to the rest of the pass-1 budget "
            f"a full run gives it, fitted to the model: at most {max(budgets):,} tokens each, {sum(budgets):,} in all "
            "(bound it with --gen_kwargs max_gen_toks=N: answers it cuts are flagged incomplete)")


def complete(backend: Backend, requests: Sequence[Request], tokenizer: Any,
             fitted: dict[int, budget.Fitted]) -> Completed:
    """The whole answer of every request with a saved answer, generating only what a stop string
    or the saved budget cut.

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
    plans: dict[int, Continuation] = {}
    for i, request in enumerate(requests):
        saved, checked = request.spec.saved, request.saved_check
        if saved is None or checked is None:
            continue
        answers[i] = saved.text
        plans[i] = plan = continuation(request, tokenizer, fitted.get(i))
        sources[i] = {**saved.source, "doc_id": saved.doc_id, "completion": plan.kind, "tokens_added": 0,
                      "saved_tokens": checked.saved_tokens, "saved_scores": saved.scores,
                      "prompt_check": checked.prompt_check}
        if checked.dropped:
            dropped.add(i)
        if plan.incomplete:
            ran_out.add(i)
    todo = {i: {**(fitted[i].gen_kwargs or {}), "max_gen_toks": p.budget} for i, p in plans.items() if p.budget > 0}
    prompts = {i: requests[i].spec.saved.prompt + answers[i] for i in todo}  # type: ignore[union-attr]
    line = describe(list(plans.values()), generations([(prompts[i], kwargs, 1) for i, kwargs in todo.items()]))
    if line:
        log.info("uta pass 1: %s", line)
        outputs = backend.generate([(prompts[i], kwargs) for i, kwargs in todo.items()], name="completion")
        for (i, kwargs), text in zip(todo.items(), outputs, strict=True):
            answers[i] += text
            sources[i]["tokens_added"] = added = _tokens(tokenizer, text) if text else 0
            if added >= kwargs["max_gen_toks"]:
                ran_out.add(i)
    return Completed(answers, sources, dropped, ran_out, todo)
