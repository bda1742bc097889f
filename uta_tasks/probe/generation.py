"""Generation settings of the two passes, from the task's ``generation_kwargs``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from uta_tasks import lm_eval_compat as compat


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


def recorded_settings(assistant: dict, user: dict, defaults: Mapping[str, Any], saved: dict | None = None,
                      completion: dict | None = None) -> dict[str, Any]:
    """A record's ``generation``: the settings of both passes as sent, and the sampling settings in
    effect (sent, else the backend's defaults; null where the backend's default is unknown). With
    ``answers_from``: the saved run's own settings beside them (``saved``), and what completed the
    answer (``completion``, null when nothing was generated).

    Args:
        assistant: pass 1's settings as sent (its budget fitted).
        user: pass 2's settings.
        defaults: the backend's sampling defaults.
        saved: the saved run's settings of the answer (None: pass 1 generated it).
        completion: the settings the saved answer's completion was sent with.
    """
    sent = {"assistant": assistant, "user": user}
    resolved = {side: {k: kwargs.get(k, defaults.get(k)) for k in compat.SAMPLING_KEYS} for side, kwargs in sent.items()}
    if saved is None:
        return {**sent, "sampling": resolved}
    return {"saved": saved, "completion": completion, **sent, "sampling": resolved}
