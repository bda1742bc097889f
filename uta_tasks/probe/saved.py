"""Pass 1 from a saved run (``answers_from``): the checks before anything generates, and the
completion of answers the saved run cut at a stop string.

The task reads each document's :class:`~uta_tasks.schema.probe.SavedAnswer` when lm-eval
builds it (:mod:`uta_tasks.runs.saved_answers` refuses a run without samples, a document it
lacks, another model, stripped reasoning). What needs the model's tokenizer is checked
here, for every request, before the first generation:

- the saved prompt equals the pass-1 prompt the probe renders (same document, few-shot
  examples, chat template, system instruction); a mismatch names the first differing
  characters and the setting that explains it;
- the saved run sampled at the probe's temperature (the paper uses one for both passes);
- the saved answer was not cut by its length budget (``overlong: drop`` drops the document
  and counts it in ``overlong``).

lm-eval cuts each response at the task's ``until``; the paper's trace is the model's whole
turn. When the saved run stopped at a string that is not the end of turn, every saved answer
is continued from its own text (pass-1 prompt + saved text, the probe's stop strings and the
rest of its token budget): an answer the model had ended adds only its end of turn, one cut
at a stop string gets the rest of its turn, as under greedy decoding a full run would write.
A response whose reasoning the saved run stripped (``think_end_token``) is used as logged: the
model never wrote its final answer after the pass-1 prompt alone, so there is nothing to continue
from (it runs as the rendered-history ablation, :mod:`uta_tasks.runs.saved_answers`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from uta_tasks.probe.backend import Backend, temperature
from uta_tasks.probe.role_switch import RoleSwitch
from uta_tasks.schema.probe import ProbeSpec, SavedAnswer

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


def _mismatch(task: str, saved: SavedAnswer, ours: str, stop: tuple[str, ...]) -> SavedAnswerError:
    at = next((i for i, (a, b) in enumerate(zip(saved.prompt, ours)) if a != b), min(len(saved.prompt), len(ours)))
    return SavedAnswerError(
        f"{task}: document {saved.doc_id}: the saved prompt ({saved.source.get('samples')}) differs from the probe's "
        f"pass-1 prompt at character {at}: saved {saved.prompt[at:at + _SHOWN]!r}, probe {ours[at:at + _SHOWN]!r}. "
        f"Likely cause: {_hint(saved.prompt, ours, stop)}"
    )


def check(request: Request, tokenizer: Any) -> bool:
    """Refuse a saved answer that cannot stand for pass 1; True when its length budget cut it
    (``overlong: drop``: the document is dropped).

    Args:
        request: a resolved request with ``spec.saved``.
        tokenizer: the model's tokenizer.
    """
    spec, saved = request.spec, request.spec.saved
    assert saved is not None
    ours = request.switch.assistant_prompt(spec.messages)
    if saved.prompt != ours:
        raise _mismatch(spec.task, saved, ours, request.switch.stop)
    theirs, mine = temperature(saved.gen_kwargs), temperature(request.assistant_kwargs)
    if theirs != mine:
        raise SavedAnswerError(
            f"{spec.task}: document {saved.doc_id}: the saved run sampled at temperature {theirs}, the probe at {mine}; "
            f"the paper uses one temperature for the answer and the user turn. Run the probe with --gen_kwargs "
            f"temperature={theirs} (do_sample={'False' if theirs == 0 else 'True'}), or save a run at {mine}"
        )
    limit = int(saved.gen_kwargs.get("max_gen_toks", LM_EVAL_MAX_GEN_TOKS))
    if _tokens(tokenizer, saved.text) < limit:
        return False
    if spec.overlong == "drop":
        return True
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
    """

    answers: dict[int, str]
    sources: dict[int, dict[str, Any]]
    dropped: set[int]


def complete(backend: Backend, requests: Sequence[Request], tokenizer: Any, dropped: set[int]) -> Completed:
    """The whole answer of every request with a saved answer, generating only what a stop string cut.

    Args:
        backend: the batched backend.
        requests: the resolved requests (those without ``spec.saved`` are skipped).
        tokenizer: the model's tokenizer.
        dropped: indices :func:`check` found cut by their length budget.
    """
    answers: dict[int, str] = {}
    sources: dict[int, dict[str, Any]] = {}
    todo: list[tuple[int, str, dict]] = []
    for i, request in enumerate(requests):
        saved = request.spec.saved
        if saved is None:
            continue
        answers[i] = saved.text
        sources[i] = {**saved.source, "doc_id": saved.doc_id, "tokens_added": 0, "saved_scores": saved.scores}
        if i in dropped or saved.reasoning_stripped or not _extra_stops(request, tokenizer):
            continue
        kwargs = dict(request.assistant_kwargs)
        budget = int(kwargs.get("max_gen_toks", LM_EVAL_MAX_GEN_TOKS)) - _tokens(tokenizer, saved.text)
        if budget < 1:
            continue
        todo.append((i, saved.prompt + saved.text, {**kwargs, "max_gen_toks": budget}))
    if todo:
        outputs = backend.generate([(prompt, kwargs) for _, prompt, kwargs in todo], name="completion")
        for (i, _, _), text in zip(todo, outputs, strict=True):
            answers[i] += text
            sources[i]["tokens_added"] = _tokens(tokenizer, text) if text else 0
    return Completed(answers, sources, dropped)
