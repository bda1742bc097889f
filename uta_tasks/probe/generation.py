"""Generation settings of the two passes, from the task's ``generation_kwargs``."""

from __future__ import annotations

from typing import Any


def _as_list(until: Any) -> list[str]:
    if until is None:
        return []
    return [until] if isinstance(until, str) else list(until)


def split_gen_kwargs(gen_kwargs: dict, stop: tuple[str, ...], user_max_gen_toks: int,
                     user_temperature: float | None = None) -> tuple[dict, dict]:
    """Settings of the assistant pass and of the user pass.

    Both passes share every sampling setting (the paper uses the same temperature for a
    and u), unless ``user_temperature`` gives the user pass its own. The user pass generates
    at most ``user_max_gen_toks`` tokens and also stops at the template's end of turn.

    Args:
        gen_kwargs: the task's generation_kwargs with ``--gen_kwargs`` merged in.
        stop: end-of-turn strings of the role switch.
        user_max_gen_toks: token limit of the user turn.
        user_temperature: the user pass's own temperature (None: the assistant's).
    """
    assistant = dict(gen_kwargs)
    assistant["until"] = _as_list(assistant.get("until"))
    user = dict(assistant)
    user["max_gen_toks"] = int(user_max_gen_toks)
    user["until"] = list(dict.fromkeys([*assistant["until"], *stop]))
    if user_temperature is not None:  # do_sample as lm-eval's backends read it: greedy at 0
        user.update(temperature=user_temperature, do_sample=user_temperature > 0)
    return assistant, user
