"""What one uta request carries from the task to the two-pass hook, and the settings split
between the assistant pass and the user pass.

An lm-eval ``Instance`` of request type ``generate_user_turn`` has
``arguments = (spec, gen_kwargs)``: ``spec`` is the dict made by :func:`make_spec`,
``gen_kwargs`` the task's ``generation_kwargs`` after ``--gen_kwargs`` were merged in.
"""

from __future__ import annotations

from typing import Any

REQUEST_TYPE = "generate_user_turn"

# Keys of generation_kwargs that only the user pass reads; never sent to the backend.
USER_MAX_GEN_TOKS = "user_max_gen_toks"
DEFAULT_USER_MAX_GEN_TOKS = 256


def make_spec(
    *,
    task: str,
    benchmark: str,
    perturbation: str,
    messages: list[dict],
    role_switch: str = "auto",
    question_seed: int = 0,
    judge: dict | None = None,
    given_answer: str | None = None,
    reference_user_turn: str | None = None,
) -> dict[str, Any]:
    """Build the request spec (JSON-serialisable: it is logged with the sample).

    Args:
        task: lm-eval task name.
        benchmark: key of ``uta_tasks.benchmarks.BENCHMARKS``.
        perturbation: ``none``, ``trunc`` or ``question``.
        messages: chat messages up to and including the user turn q.
        role_switch: the ``role_switch`` setting.
        question_seed: the ``question_seed`` setting.
        judge: judge settings (metadata keys), or None to skip judging.
        given_answer: held-out only: the real assistant turn (pass 1 skipped).
        reference_user_turn: held-out only: the real next user turn.
    """
    return {
        "task": task,
        "benchmark": benchmark,
        "perturbation": perturbation,
        "messages": messages,
        "role_switch": role_switch,
        "question_seed": int(question_seed),
        "judge": judge,
        "given_answer": given_answer,
        "reference_user_turn": reference_user_turn,
    }


def _as_list(until: Any) -> list[str]:
    if until is None:
        return []
    return [until] if isinstance(until, str) else list(until)


def split_gen_kwargs(gen_kwargs: dict, stop: tuple[str, ...]) -> tuple[dict, dict]:
    """Settings of the assistant pass and of the user pass.

    Both passes share every sampling setting (the paper uses the same temperature for a
    and u). The user pass generates at most ``user_max_gen_toks`` tokens and also stops at
    the template's end of turn.

    Args:
        gen_kwargs: the task's generation_kwargs with ``--gen_kwargs`` merged in.
        stop: end-of-turn strings of the role switch.
    """
    assistant = {k: v for k, v in gen_kwargs.items() if k != USER_MAX_GEN_TOKS}
    assistant["until"] = _as_list(assistant.get("until"))
    user = dict(assistant)
    user["max_gen_toks"] = int(gen_kwargs.get(USER_MAX_GEN_TOKS, DEFAULT_USER_MAX_GEN_TOKS))
    user["until"] = list(dict.fromkeys([*assistant["until"], *stop]))
    return assistant, user


def question_text(messages: list[dict]) -> str:
    """The last user turn: q.

    Args:
        messages: chat messages.
    """
    for message in reversed(messages):
        if message.get("role") == "user":
            return str(message.get("content", ""))
    return ""
