"""The two-pass request: answer, then user turn.

lm-eval's evaluator calls ``getattr(lm, request_type)(requests)`` once per request type,
with the requests of every task in the run. :func:`install` gives every lm-eval model a
``generate_user_turn`` method, so all uta tasks of a run share:

1. checks that cost nothing: chat template, role switch, judge settings (before any
   generation);
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
from dataclasses import dataclass
from typing import Any

from uta_tasks import lm_eval_compat as compat
from uta_tasks import scale_out
from uta_tasks.probe import judging, perturb, reasoning, role_switch
from uta_tasks.probe.backend import Backend
from uta_tasks.probe.generation import split_gen_kwargs
from uta_tasks.probe.records import REQUEST_TYPE, ProbeRecord, ProbeSpec

log = logging.getLogger(__name__)

# The last run's pass statistics, for logs and tests: {"assistant": BatchStats, "user": ...}.
LAST_RUN: dict[str, Any] = {}


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
    # local-completions: keep special tokens, as lm-eval's in-process vLLM does.
    server_defaults = scale_out.server_decoding_defaults(lm)
    requests = []
    for instance in instances:
        spec = ProbeSpec.from_dict(instance.args[2])
        switch = role_switch.for_model(tokenizer, spec.role_switch)
        gen_kwargs = {**server_defaults, **instance.args[1]}
        assistant, user = split_gen_kwargs(gen_kwargs, switch.stop, spec.user_max_gen_toks)
        requests.append(Request(spec, switch, assistant, user))
    _check_backend(lm, requests)
    judging.preflight_all([r.spec for r in requests])
    return requests


def _check_backend(lm: Any, requests: list[Request]) -> None:
    """Refuse, before any generation or model load, a backend the two passes cannot use
    (in-process vLLM with data parallelism, an API model whose max_length would cut prompts).

    Args:
        lm: the lm-eval model.
        requests: the resolved requests.
    """
    used = [r.user_kwargs for r in requests] + [r.assistant_kwargs for r in requests if r.spec.given_answer is None]
    problem = scale_out.backend_problem(lm, used)
    if problem:
        raise ProbeError(problem)


def pass1(backend: Backend, requests: list[Request]) -> tuple[list[str], dict[int, str]]:
    """Generate the assistant answers (held-out requests keep their given answer).

    Args:
        backend: the batched backend.
        requests: the resolved requests.

    Returns:
        The answer of every request, and the pass-1 prompt of those that generated.
    """
    answers = [r.spec.given_answer or "" for r in requests]
    todo = [i for i, r in enumerate(requests) if r.spec.given_answer is None]
    prompts = {i: requests[i].switch.assistant_prompt(requests[i].spec.messages) for i in todo}
    if todo:
        outputs = backend.generate([(prompts[i], requests[i].assistant_kwargs) for i in todo], name="assistant")
        for i, text in zip(todo, outputs, strict=True):
            answers[i] = text
    return answers, prompts


def build_record(request: Request, answer: str, pass1_prompt: str | None, tokenizer: Any) -> ProbeRecord:
    """Perturb one answer and render its pass-2 prompts.

    Args:
        request: the resolved request.
        answer: its pass-1 answer.
        pass1_prompt: its pass-1 prompt (None when held-out).
        tokenizer: the model's tokenizer (truncation counts its tokens).
    """
    spec, switch = request.spec, request.switch
    split = reasoning.split(answer)
    history = answer if switch.history == "raw" else split.final
    shown = perturb.perturb(spec.perturbation, history, tokenizer=tokenizer, question=spec.q, seed=spec.question_seed)
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
        history=history,
        a_prime=shown.text,
        truncation={"n_tokens": shown.n_tokens, "removed_tokens": shown.removed_tokens, "emptied": shown.emptied}
        if spec.perturbation == "trunc"
        else None,
        cue=shown.cue,
        role_switch={"name": switch.name, "history": switch.history, "stop": list(switch.stop)},
        generation={"assistant": request.assistant_kwargs, "user": request.user_kwargs},
        given_answer=spec.given_answer is not None,
        reference_user_turn=spec.reference_user_turn,
        pass2_prompt=switch.user_prompt(spec.messages, shown.text),
        pass2_ref_prompt=switch.user_prompt(spec.messages, history) if spec.perturbed else None,
    )


def pass2(backend: Backend, requests: list[Request], records: list[ProbeRecord]) -> None:
    """Generate u (and u_ref for perturbed tasks) for every record, in place.

    Args:
        backend: the batched backend.
        requests: the resolved requests.
        records: their records with pass-2 prompts.
    """
    prompts: list[tuple[str, dict]] = []
    for request, record in zip(requests, records, strict=True):
        prompts.append((record.pass2_prompt, request.user_kwargs))
        if record.pass2_ref_prompt is not None:
            prompts.append((record.pass2_ref_prompt, request.user_kwargs))
    outputs = iter(backend.generate(prompts, name="user"))
    for record in records:
        record.u = next(outputs)
        record.u_ref = next(outputs) if record.pass2_ref_prompt is not None else record.u


def run(lm: Any, instances: list) -> list[ProbeRecord]:
    """Run both passes (and the judge) for every uta request of the run.

    Args:
        lm: the lm-eval model (the method's ``self``).
        instances: lm-eval Instances of type ``generate_user_turn``, repeats included.
    """
    if not instances:
        return []
    requests = resolve(lm, instances)
    backend = Backend(lm)
    answers, prompts1 = pass1(backend, requests)
    tokenizer = _tokenizer(lm)
    records = [build_record(r, answers[i], prompts1.get(i), tokenizer) for i, r in enumerate(requests)]
    pass2(backend, requests, records)
    judging.judge_records(records, [r.spec for r in requests])
    LAST_RUN.clear()
    LAST_RUN.update(backend.stats)
    return records


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
