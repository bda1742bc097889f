"""What one uta request carries from the task to the two-pass hook, and the settings split
between the assistant pass and the user pass.

An lm-eval ``Instance`` of request type ``generate_user_turn`` has
``arguments = (q, gen_kwargs, spec)``: ``q`` the user turn (lm-eval hashes it as the
prompt), ``gen_kwargs`` the task's ``generation_kwargs`` after ``--gen_kwargs`` were merged
in, ``spec`` the dict made by :func:`make_spec`.
"""

from __future__ import annotations

from typing import Any

REQUEST_TYPE = "generate_user_turn"

# Token limit of the user turn: a metadata setting, not a generation kwarg, because
# lm-eval applies --gen_kwargs to every generate_until task of the run.
DEFAULT_USER_MAX_GEN_TOKS = 512


def make_spec(
    *,
    task: str,
    benchmark: str,
    perturbation: str,
    messages: list[dict],
    role_switch: str = "auto",
    question_seed: int = 0,
    user_max_gen_toks: int = DEFAULT_USER_MAX_GEN_TOKS,
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
        user_max_gen_toks: the ``user_max_gen_toks`` setting.
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
        "user_max_gen_toks": int(user_max_gen_toks),
        "judge": judge,
        "given_answer": given_answer,
        "reference_user_turn": reference_user_turn,
    }


def _as_list(until: Any) -> list[str]:
    if until is None:
        return []
    return [until] if isinstance(until, str) else list(until)


def split_gen_kwargs(gen_kwargs: dict, stop: tuple[str, ...], user_max_gen_toks: int) -> tuple[dict, dict]:
    """Settings of the assistant pass and of the user pass.

    Both passes share every sampling setting (the paper uses the same temperature for a
    and u). The user pass generates at most ``user_max_gen_toks`` tokens and also stops at
    the template's end of turn.

    Args:
        gen_kwargs: the task's generation_kwargs with ``--gen_kwargs`` merged in.
        stop: end-of-turn strings of the role switch.
        user_max_gen_toks: token limit of the user turn.
    """
    assistant = dict(gen_kwargs)
    assistant["until"] = _as_list(assistant.get("until"))
    user = dict(assistant)
    user["max_gen_toks"] = int(user_max_gen_toks)
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
