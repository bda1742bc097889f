"""What pass 2 shows: the assistant turn (history and a') and the pass-2 prompts, per the
``pass2_context`` and ``truncate_scope`` settings.

* ``pass2_context: trace`` (default, the paper): the assistant turn is the generation as
  returned (reasoning included, a trailing end-of-generation token removed), and the pass-2
  prompt is pass-1 prompt + a' + the template's marker and user header
  (:mod:`uta_tasks.probe.trace`). Held-out conversations: the data's conversation as the
  model's template renders it, then the same marker and header.
* ``pass2_context: template``: ``[q, a']`` re-rendered through the role switch
  (:mod:`uta_tasks.probe.role_switch`), the ablation the paper never ran.
* ``truncate_scope: response`` (default, the paper): a perturbation whose registry entry
  says ``whole_response`` (trunc) counts and cuts every token of the assistant turn,
  reasoning included, from its end. ``final_answer``: it gets the final answer only, the
  reasoning in front kept as generated.

Every other perturbation (the appended question, say) gets the final answer, and the
reasoning in front is kept as generated (:mod:`uta_tasks.probe.perturbations`). Accuracy never depends on
either setting: it is scored on the final answer of the untruncated a.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from uta_tasks.probe import perturb, perturbations, reasoning, trace
from uta_tasks.probe.role_switch import RoleSwitch
from uta_tasks.schema.probe import ProbeSpec


@dataclass(frozen=True)
class Shown:
    """The assistant turn as pass 2 shows it, and the prompts built on it.

    Attributes:
        history: the unperturbed assistant turn as the pass-2 context carries it.
        a_prime: the perturbed one (= history for ``none``).
        perturbed: the perturbation's bookkeeping (counts, cue).
        pass2_prompt: the prompt u is generated from.
        pass2_ref_prompt: perturbed tasks: the prompt u_ref is generated from.
        join: trace mode: the marker and header appended (None in template mode).
    """

    history: str
    a_prime: str
    perturbed: perturb.Perturbed
    pass2_prompt: str
    pass2_ref_prompt: str | None
    join: trace.Join | None


def _whole_response(spec: ProbeSpec) -> bool:
    """The task's perturbation is given the whole response, reasoning included."""
    return perturbations.get(spec.perturbation).takes_whole_response(spec.truncate_scope)


def _perturb_raw(spec: ProbeSpec, raw: str, prompt: str, tokenizer: Any) -> tuple[str, perturb.Perturbed]:
    """Perturb the assistant turn as generated; returns (a' as generated, bookkeeping)."""
    if not spec.perturbed:
        return raw, perturb.Perturbed(text=raw)
    entry = perturbations.get(spec.perturbation)
    context = perturb.Context(spec.q, tokenizer if entry.needs_tokenizer else None, spec.question_seed,
                                    spec.question_pool, spec.truncate_scope)
    if _whole_response(spec):
        shown = entry.apply(raw, context)
        return shown.text, shown
    split = reasoning.split(raw, prompt)
    shown = entry.apply(split.final, context)
    return split.prefix + shown.text, shown


def build(spec: ProbeSpec, switch: RoleSwitch, answer: str, pass1_prompt: str | None, tokenizer: Any) -> Shown:
    """The assistant turn and pass-2 prompts of one request.

    Args:
        spec: the request.
        switch: its role switch.
        answer: the pass-1 answer (held-out: the data's assistant turn).
        pass1_prompt: the pass-1 prompt (None when held-out).
        tokenizer: the model's tokenizer (truncation counts its tokens).
    """
    prompt = pass1_prompt or ""
    if spec.pass2_context == "trace":
        join = trace.for_model(switch.tokenizer, switch.template_args, switch.stop)
        history = join.body(answer) if pass1_prompt is not None else answer
        a_prime, shown = _perturb_raw(spec, history, prompt, tokenizer)
        if pass1_prompt is not None:
            ref = join.prompt(pass1_prompt, history)
            main = join.prompt(pass1_prompt, a_prime)
        else:
            ref = switch.own_template_prompt(spec.messages, history)
            main = switch.own_template_prompt(spec.messages, a_prime)
        return Shown(history, a_prime, shown, main, ref if spec.perturbed else None, join)
    raw_prime, shown = _perturb_raw(spec, answer, prompt, tokenizer)
    if switch.history == "raw":
        history, a_prime = answer, raw_prime
    else:
        history = reasoning.split(answer, prompt).final
        if not spec.perturbed:
            a_prime = history
        elif _whole_response(spec):
            a_prime = reasoning.split(raw_prime, prompt).final
        else:
            a_prime = shown.text
    ref_prompt = switch.user_prompt(spec.messages, history) if spec.perturbed else None
    return Shown(history, a_prime, shown, switch.user_prompt(spec.messages, a_prime), ref_prompt, None)
