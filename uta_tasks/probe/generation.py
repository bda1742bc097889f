"""Generation settings of the two passes, from the task's ``generation_kwargs``."""

from __future__ import annotations

from typing import Any


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
