"""The two-pass request: answer, then user turn.

lm-eval's evaluator calls ``getattr(lm, request_type)(requests)`` once per request type,
with the requests of every task in the run. :func:`install` gives every lm-eval model a
``generate_user_turn`` method, so all uta tasks of a run share:

1. checks that cost nothing: chat template, role switch, judge settings (before any
   generation);
2. ONE backend call for pass 1 (assistant answers a);
3. perturbation of a into a' per task;
4. ONE backend call for pass 2 (user turns u, and u_ref on the unperturbed a);
5. ONE concurrent judge run over every distinct (context, u) of the run.

Each request gets back its record as a JSON string (lm-eval logs responses as strings;
JSON keeps them readable): the prompts, a, a', u, u_ref, verdicts and settings.
Other tasks of the same run (lm-eval's own ``ifeval``, say) never reach this code.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from lm_eval.api.model import LM

from uta_tasks.probe import judging, perturb, reasoning, role_switch
from uta_tasks.probe.backend import Backend
from uta_tasks.probe.spec import REQUEST_TYPE, question_text, split_gen_kwargs

log = logging.getLogger(__name__)

# The last run's pass statistics, for logs and tests: {"assistant": BatchStats, "user": ...}.
LAST_RUN: dict[str, Any] = {}


class ProbeError(RuntimeError):
    """The probe cannot run with this model or setting; the message names the fix."""


def _tokenizer(lm: Any) -> Any:
    tokenizer = getattr(lm, "tokenizer", None)
    if tokenizer is None or not hasattr(tokenizer, "apply_chat_template"):
        raise ProbeError(
            f"The uta tasks need the model's own Hugging Face tokenizer and chat template; "
            f"--model {type(lm).__name__} exposes none. Use --model hf or --model vllm."
        )
    return tokenizer


def run(lm: Any, requests: list) -> list[dict]:
    """Run both passes (and the judge) for every uta request of the run.

    Args:
        lm: the lm-eval model (the method's ``self``).
        requests: lm-eval Instances of type ``generate_user_turn``, repeats included.
    """
    if not requests:
        return []
    tokenizer = _tokenizer(lm)
    specs = [req.args[2] for req in requests]
    switches = [role_switch.for_model(tokenizer, s["role_switch"]) for s in specs]
    judging.preflight_all(specs)
    backend = Backend(lm)

    kwargs = [
        split_gen_kwargs(req.args[1], sw.stop, spec["user_max_gen_toks"])
        for req, sw, spec in zip(requests, switches, specs)
    ]
    pass1 = [i for i, s in enumerate(specs) if s.get("given_answer") is None]
    answers: list[str | None] = [s.get("given_answer") for s in specs]
    prompts1: dict[int, str] = {}
    if pass1:
        prompts1 = {i: switches[i].assistant_prompt(specs[i]["messages"]) for i in pass1}
        outputs = backend.generate([(prompts1[i], kwargs[i][0]) for i in pass1], name="assistant")
        for i, text in zip(pass1, outputs, strict=True):
            answers[i] = text

    records: list[dict] = []
    prompts2: list[tuple[str, dict]] = []
    for i, spec in enumerate(specs):
        sw, answer = switches[i], answers[i] or ""
        split = reasoning.split(answer)
        history = answer if sw.history == "raw" else split.final
        q = question_text(spec["messages"])
        shown = perturb.perturb(
            spec["perturbation"], history, tokenizer=tokenizer, question=q, seed=spec["question_seed"]
        )
        record = {
            "task": spec["task"],
            "benchmark": spec["benchmark"],
            "perturbation": spec["perturbation"],
            "q": q,
            "messages": spec["messages"],
            "pass1_prompt": prompts1.get(i),
            "a": answer,
            "answer": split.final,
            "reasoning_form": split.form,
            "a_prime": shown.text,
            "truncation": {
                "n_tokens": shown.n_tokens,
                "removed_tokens": shown.removed_tokens,
                "emptied": shown.emptied,
            }
            if spec["perturbation"] == "trunc"
            else None,
            "cue": shown.cue,
            "role_switch": {"name": sw.name, "history": sw.history, "stop": list(sw.stop)},
            "generation": {"assistant": kwargs[i][0], "user": kwargs[i][1]},
            "given_answer": spec.get("given_answer") is not None,
            "reference_user_turn": spec.get("reference_user_turn"),
            "_history": history,
        }
        record["pass2_prompt"] = sw.user_prompt(spec["messages"], shown.text)
        prompts2.append((record["pass2_prompt"], kwargs[i][1]))
        if spec["perturbation"] != "none":
            record["pass2_ref_prompt"] = sw.user_prompt(spec["messages"], history)
            prompts2.append((record["pass2_ref_prompt"], kwargs[i][1]))
        records.append(record)

    outputs = iter(backend.generate(prompts2, name="user"))
    for record in records:
        record["u"] = next(outputs)
        record["u_ref"] = next(outputs) if record["perturbation"] != "none" else record["u"]

    judging.judge_records(records, specs)
    for record in records:
        record.pop("_history", None)
    LAST_RUN.clear()
    LAST_RUN.update(backend.stats)
    return records


def generate_user_turn(self: LM, requests: list, disable_tqdm: bool = False) -> list[str]:
    """lm-eval request method for ``generate_user_turn`` (installed on ``LM``).

    Args:
        requests: the uta Instances of the whole run.
        disable_tqdm: accepted for signature compatibility.

    Returns:
        One JSON record per request.
    """
    return [json.dumps(record, ensure_ascii=False) for record in run(self, requests)]


def install() -> None:
    """Make ``generate_user_turn`` available on every lm-eval model class (idempotent)."""
    if getattr(LM, REQUEST_TYPE, None) is not generate_user_turn:
        setattr(LM, REQUEST_TYPE, generate_user_turn)
