"""The two-pass request: answer, then user turn.

lm-eval's evaluator calls ``getattr(lm, request_type)(requests)`` once per request type,
with the requests of every task in the run. :func:`install` gives every lm-eval model a
``generate_user_turn`` method, so all uta tasks of a run share:

1. checks that cost nothing: chat template, role switch, judge settings (before any
   generation; a judge server started beside lm_eval, ``judge_start_wait``, is waited for
   beside the passes, and before step 5);
2. :func:`pass1` - ONE backend call for the assistant answers a;
3. :func:`build_records` - perturbation of a into a' per task, and the pass-2 prompts;
4. :func:`pass2` - ONE backend call for the user turns u (and u_ref on the unperturbed a);
5. :func:`uta_tasks.probe.judging.judge_records` - ONE concurrent judge run over every
   distinct (context, u) of the run.

Each request gets back its :class:`~uta_tasks.probe.records.ProbeRecord` as JSON.
Other tasks of the same run (lm-eval's own ``ifeval``, say) never reach this code.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any

from uta_tasks import lm_eval_compat as compat
from uta_tasks.probe import budget, judging, reasoning, role_switch, saved, saved_tokens, scale_out, turns
from uta_tasks.probe.backend import Backend
from uta_tasks.probe.generation import recorded_settings, split_gen_kwargs
from uta_tasks.schema.probe import REQUEST_TYPE, ProbeRecord, ProbeSpec

log = logging.getLogger(__name__)

# The last run's pass statistics, for logs and tests: {"assistant": BatchStats, "user": ...}.
LAST_RUN: dict[str, Any] = {}
# Share of incomplete answers in a task above which the run warns.
INCOMPLETE_WARN_SHARE = 0.05


class ProbeError(RuntimeError):
    """The probe cannot run with this model or setting; the message names the fix."""


@dataclass(frozen=True)
class Request:
    """One uta request, resolved against the model: its spec, role switch and the
    generation settings of both passes."""

    spec: ProbeSpec
    switch: role_switch.RoleSwitch
    assistant_kwargs: dict
    user_kwargs: dict
    sampling_defaults: dict
    saved_check: saved.SavedCheck | None = None

    @property
    def saved_dropped(self) -> bool:
        """``answers_from``: the saved answer ran into its budget and ``overlong: drop`` drops it."""
        return self.saved_check is not None and self.saved_check.dropped


def _tokenizer(lm: Any) -> Any:
    tokenizer = getattr(lm, "tokenizer", None)
    if tokenizer is None or not hasattr(tokenizer, "apply_chat_template"):
        raise ProbeError(
            f"The uta tasks need the model's own Hugging Face tokenizer and chat template; "
            f"--model {type(lm).__name__} exposes none. Use --model hf, --model vllm, or --model "
            "local-completions with tokenizer_backend=huggingface,tokenizer=<the served model's HF id or folder>."
        )
    return tokenizer


def resolve(lm: Any, instances: list) -> list[Request]:
    """Check and resolve every request before any generation.

    Args:
        lm: the lm-eval model.
        instances: lm-eval Instances of type ``generate_user_turn``.
    """
    tokenizer = _tokenizer(lm)
    if compat.think_end_token(lm) is not None:
        raise ProbeError(
            "--model_args think_end_token=... makes lm-eval cut the reasoning out of every generation, in both "
            "passes; the probe needs the raw text (it separates the reasoning itself, and reasoning written under "
            "the user header is what the judge labels). Remove think_end_token; thinking templates stay on by "
            "default, and enable_thinking=False turns them off."
        )
    template_args = compat.chat_template_args(lm)
    defaults = compat.sampling_defaults(lm)
    # local-completions: keep special tokens, as lm-eval's in-process vLLM does.
    server_defaults = scale_out.server_decoding_defaults(lm)
    judge = judging.judge_decoder()
    requests = [resolve_one(ProbeSpec.from_dict(instance.args[2], judge), {**server_defaults, **instance.args[1]},
                            tokenizer, template_args, defaults) for instance in instances]
    _check_user_samples(requests)
    problem = scale_out.backend_problem(lm)
    if problem:
        raise ProbeError(problem)
    return requests


def resolve_one(spec: ProbeSpec, gen_kwargs: dict, tokenizer: Any, template_args: dict[str, Any],
                defaults: dict) -> Request:
    """One request resolved against the model's tokenizer: its role switch and the generation
    settings of both passes; ``answers_from``: the saved answer checked (same prompt, temperature,
    a whole answer) or refused. ``uta-eval`` calls it before the model loads too
    (:mod:`uta_tasks.probe.saved_precheck`).

    Args:
        spec: the request's spec.
        gen_kwargs: its generation settings (the task's, ``--gen_kwargs`` applied).
        tokenizer: the model's tokenizer.
        template_args: the model's chat-template arguments.
        defaults: the backend's sampling defaults.
    """
    switch = role_switch.for_model(tokenizer, spec.role_switch, template_args)
    assistant, user = split_gen_kwargs(gen_kwargs, switch.stop, spec.user_max_gen_toks, spec.user_temperature)
    if spec.saved is not None and spec.saved.messages is not None:  # a harness that logged the messages sent
        spec = replace(spec, saved=replace(spec.saved, prompt=switch.assistant_prompt(spec.saved.messages)))
    if spec.saved is not None and spec.saved.prompt_tokens is not None:  # a harness that logged the tokens sent
        try:
            sent = saved_tokens.decode(spec.task, spec.saved, tokenizer)
        except saved_tokens.SavedTokensError as exc:
            raise ProbeError(str(exc)) from None
        spec = replace(spec, saved=replace(spec.saved, prompt=sent))
    request = Request(spec, switch, assistant, user, defaults)
    if spec.saved is not None:
        try:
            request = replace(request, saved_check=saved.check(request, tokenizer))
        except saved.SavedAnswerError as exc:
            raise ProbeError(str(exc)) from None
    return request


def _check_user_samples(requests: list[Request]) -> None:
    """``user_samples > 1`` needs sampling: at T = 0 the k user turns would be one turn k times."""
    from uta_tasks.probe.backend import is_greedy

    for request in requests:
        if request.spec.user_samples > 1 and is_greedy(request.user_kwargs):
            raise ProbeError(
                f"{request.spec.task}: user_samples={request.spec.user_samples} draws k user turns per answer, but "
                "the run decodes greedily (T = 0), so all k would be the same turn. Sample instead: "
                "--gen_kwargs temperature=0.7,do_sample=True (the paper's temperatures are 0.3, 0.7 and 1.0), "
                "or set user_samples to 1."
            )


@dataclass
class Pass1:
    """What pass 1 produced, per request index.

    Attributes:
        answers: the answer of every request ("" when dropped).
        prompts: the pass-1 prompt of those that generated.
        fitted: their fitted budgets.
        sources: ``answers_from``: the ``answer_source`` of each saved answer.
        dropped: ``answers_from``: saved answers their length budget cut (``overlong: drop``).
        ran_out: ``answers_from``: answers that are not whole (a completion that used all the budget
            a full run would have had, or none left to continue with).
        completion_kwargs: ``answers_from``: the settings each completion was sent with.
    """

    answers: list[str]
    prompts: dict[int, str]
    fitted: dict[int, budget.Fitted]
    sources: dict[int, dict] = field(default_factory=dict)
    dropped: set[int] = field(default_factory=set)
    ran_out: set[int] = field(default_factory=set)
    completion_kwargs: dict[int, dict] = field(default_factory=dict)


def pass1(backend: Backend, requests: list[Request], tokenizer: Any, max_length: int | None) -> Pass1:
    """Generate the assistant answers (held-out requests keep their given answer; ``answers_from``
    takes the saved answer and generates only what a stop string cut from it).

    Args:
        backend: the batched backend.
        requests: the resolved requests.
        tokenizer: the model's tokenizer (measures the prompts).
        max_length: the model's maximum length.
    """
    answers = [r.spec.given_answer or "" for r in requests]
    todo = [i for i, r in enumerate(requests) if r.spec.given_answer is None and r.spec.saved is None]
    prompts = {i: requests[i].switch.assistant_prompt(requests[i].spec.messages) for i in todo}
    # answers_from: the saved prompt is pass 1, fitted as a generated answer's prompt would be
    kept = [i for i, r in enumerate(requests) if r.spec.saved is not None and not r.saved_dropped]
    prompts.update({i: requests[i].spec.saved.prompt for i in kept})  # type: ignore[union-attr]
    fit = [*todo, *kept]
    fitted = dict(zip(fit, _fit([(prompts[i], requests[i].assistant_kwargs) for i in fit],
                                [requests[i] for i in fit], tokenizer, max_length, "pass 1")))
    send = [i for i in todo if fitted[i].gen_kwargs is not None]
    if send:
        outputs = backend.generate([(prompts[i], fitted[i].gen_kwargs or {}) for i in send], name="assistant")
        for i, text in zip(send, outputs, strict=True):
            answers[i] = text
    done = saved.complete(backend, requests, tokenizer, {i: fitted[i] for i in kept})
    for i, text in done.answers.items():
        answers[i] = text
        prompts[i] = requests[i].spec.saved.prompt  # type: ignore[union-attr]
    return Pass1(answers, prompts, fitted, done.sources, done.dropped, done.ran_out, done.completion_kwargs)


def _fit(prompts: list[tuple[str, dict]], requests: list[Request], tokenizer: Any, max_length: int | None,
         what: str) -> list[budget.Fitted]:
    policies = {r.spec.overlong for r in requests}
    policy = "drop" if policies == {"drop"} else "error"
    return budget.fit(prompts, tokenizer, max_length, what=what, policy=policy, tasks=[r.spec.task for r in requests])


def _hit_limit(text: str, fitted: budget.Fitted | None, tokenizer: Any) -> bool:
    if fitted is None or fitted.gen_kwargs is None:
        return False
    return budget.count_tokens(tokenizer, text) > fitted.budget


def build_record(
    request: Request, answer: str, pass1_prompt: str | None, tokenizer: Any, fitted: budget.Fitted | None = None,
    answer_source: dict | None = None, ran_out: bool = False, completion: dict | None = None,
) -> ProbeRecord:
    """Perturb one answer and render its pass-2 prompts (:mod:`uta_tasks.probe.turns` decides
    what pass 2 shows, per ``pass2_context`` and ``truncate_scope``).

    Args:
        request: the resolved request.
        answer: its pass-1 answer.
        pass1_prompt: its pass-1 prompt (None when held-out).
        tokenizer: the model's tokenizer (truncation counts its tokens).
        fitted: its fitted pass-1 budget (None when held-out).
        answer_source: ``answers_from``: where the answer was read from (None when generated).
        ran_out: ``answers_from``: the answer is not whole (its completion used all the budget a full
            run would have had, or none was left to continue it with).
        completion: ``answers_from``: the settings its completion was sent with (None: none ran).
    """
    spec, switch = request.spec, request.switch
    split = reasoning.split(answer, pass1_prompt or "")
    shown = turns.build(spec, switch, answer, pass1_prompt, tokenizer)
    cut = shown.perturbed
    overlong = "pass1" if (fitted is not None and fitted.gen_kwargs is None) or request.saved_dropped else None
    return ProbeRecord(
        task=spec.task,
        benchmark=spec.benchmark,
        perturbation=spec.perturbation,
        q=spec.q,
        messages=spec.messages,
        pass1_prompt=pass1_prompt,
        a=answer,
        answer=split.final,
        reasoning_form=split.form,
        history=shown.history,
        a_prime=shown.a_prime,
        truncation=cut.truncation,
        cue=cut.cue,
        question_pool=cut.question_pool,
        role_switch={"name": switch.name, "history": switch.history, "stop": list(switch.stop),
                     "template_args": switch.template_args},
        generation=recorded_settings(fitted.gen_kwargs if fitted and fitted.gen_kwargs else request.assistant_kwargs,
                                      request.user_kwargs, request.sampling_defaults,
                                      spec.saved.gen_kwargs if spec.saved else None, completion),
        answer_incomplete=split.unclosed or ran_out or _hit_limit(answer, fitted, tokenizer),
        overlong=overlong,
        budget={"assistant": fitted.budget} if fitted is not None else {},
        given_answer=spec.given_answer is not None,
        reference_user_turn=spec.reference_user_turn,
        pass2_prompt=shown.pass2_prompt,
        pass2_ref_prompt=shown.pass2_ref_prompt,
        pass2_context=spec.pass2_context,
        truncate_scope=spec.truncate_scope,
        join=shown.join.to_dict() if shown.join is not None else None,
        answer_source=answer_source,
    )


def pass2(
    backend: Backend, requests: list[Request], records: list[ProbeRecord], tokenizer: Any, max_length: int | None
) -> list[ProbeRecord]:
    """Generate u (and u_ref for perturbed tasks, and the other user samples) for every record.

    Args:
        backend: the batched backend.
        requests: the resolved requests.
        records: their records with pass-2 prompts.
        tokenizer: the model's tokenizer (measures the prompts).
        max_length: the model's maximum length.

    Returns:
        The records with their user turns (new values), in order.
    """
    owners: list[int] = []  # per prompt, its record: u, the other samples, then u_ref, contiguous per record
    prompts: list[tuple[str, dict]] = []
    for i, (request, record) in enumerate(zip(requests, records, strict=True)):
        if record.overlong:
            continue
        ref = [] if record.pass2_ref_prompt is None else [record.pass2_ref_prompt]
        for prompt in [record.pass2_prompt] * request.spec.user_samples + ref:
            owners.append(i)
            prompts.append((prompt, request.user_kwargs))
    fitted = _fit(prompts, [requests[i] for i in owners], tokenizer, max_length, "pass 2")
    too_long = {i for i, fit in zip(owners, fitted, strict=True) if fit.gen_kwargs is None}
    send = [k for k, i in enumerate(owners) if i not in too_long]
    outputs = backend.generate([(prompts[k][0], fitted[k].gen_kwargs or {}) for k in send], name="user")
    texts: dict[int, list[str]] = {}
    budgets: dict[int, int] = {}
    for k, text in zip(send, outputs, strict=True):
        texts.setdefault(owners[k], []).append(text)
        budgets[owners[k]] = fitted[k].budget
    out = []
    for i, (request, record) in enumerate(zip(requests, records, strict=True)):
        if i in too_long:
            out.append(replace(record, overlong="pass2"))
        elif i in texts:
            out.append(_with_user_turns(record, texts[i], budgets[i], request.spec.user_samples))
        else:
            out.append(record)
    return out


def _with_user_turns(record: ProbeRecord, texts: list[str], user_budget: int, samples: int) -> ProbeRecord:
    """The record with its generated user turns: ``texts`` is u, the other samples, then u_ref."""
    u, others = texts[0], texts[1:samples]
    return replace(
        record, u=u, u_ref=texts[samples] if record.pass2_ref_prompt is not None else u,
        u_samples=[u, *others] if others else [], budget={**record.budget, "user": user_budget},
    )


def run(lm: Any, instances: list) -> list[ProbeRecord]:
    """Run both passes (and the judge) for every uta request of the run.

    Args:
        lm: the lm-eval model (the method's ``self``).
        instances: lm-eval Instances of type ``generate_user_turn``, repeats included.
    """
    if not instances:
        return []
    with compat.shown_beside_lm_eval(__name__.split(".")[0]):  # the passes and completions in lm-eval's log
        return _run(lm, instances)


def _run(lm: Any, instances: list) -> list[ProbeRecord]:
    requests = resolve(lm, instances)
    judge_ready = judging.preflight_all([r.spec for r in requests])  # before generation, or beside it
    backend = Backend(lm)
    tokenizer = _tokenizer(lm)
    max_length = compat.max_length(lm)
    first = pass1(backend, requests, tokenizer, max_length)
    records = [
        build_record(r, first.answers[i], first.prompts.get(i), tokenizer, first.fitted.get(i), first.sources.get(i),
                     i in first.ran_out, first.completion_kwargs.get(i))
        for i, r in enumerate(requests)
    ]
    _warn_incomplete(records)
    records = pass2(backend, requests, records, tokenizer, max_length)
    judge_ready()
    records = judging.judge_records(records, [None if r.overlong else q.spec for r, q in zip(records, requests)])
    LAST_RUN.clear()
    LAST_RUN.update(backend.stats)
    return records


def _warn_incomplete(records: list[ProbeRecord]) -> None:
    """One warning for the whole run, naming each task above :data:`INCOMPLETE_WARN_SHARE`."""
    by_task: dict[str, list[bool]] = {}
    for record in records:
        if not record.given_answer:
            by_task.setdefault(record.task, []).append(record.answer_incomplete)
    over = [
        f"{task} {sum(flags)}/{len(flags)}"
        for task, flags in by_task.items()
        if sum(flags) / len(flags) > INCOMPLETE_WARN_SHARE
    ]
    if over:
        log.warning(
            "incomplete answers (reasoning never closed, or the token budget ran out) in %s: they count as wrong "
            "and their follow-up rates are also reported without them (genuine_followup_complete). Raise "
            "--gen_kwargs max_gen_toks=... and the model's maximum length (max_model_len / max_length).",
            ", ".join(over),
        )


def generate_user_turn(self: Any, requests: list, disable_tqdm: bool = False) -> list[str]:
    """lm-eval request method for ``generate_user_turn`` (installed on ``LM``).

    Args:
        requests: the uta Instances of the whole run.
        disable_tqdm: accepted for signature compatibility.

    Returns:
        One JSON record per request.
    """
    return [record.to_json() for record in run(self, requests)]


def install() -> None:
    """Make ``generate_user_turn`` available on every lm-eval model class (idempotent)."""
    compat.install_request_method(REQUEST_TYPE, generate_user_turn)
