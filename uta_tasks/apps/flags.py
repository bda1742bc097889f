"""One spelling per long option across the commands, lm-eval's: words joined by ``_``
(``--output_path``, ``--max_samples``, ``--judge_model``), as ``lm_eval`` spells its own.

:func:`lm_eval_spelling` respells a built parser: each ``--word-word`` option is shown and
named in messages as ``--word_word``, and the former spelling still parses (a hidden alias),
so commands written before keep working. Sub-commands and argument groups are respelled too.
"""

from __future__ import annotations

import argparse


def former(option: str) -> str:
    """The spelling with ``-`` between words that an option had before (``--max_samples`` ->
    ``--max-samples``), kept as a hidden alias.

    Args:
        option: an option string.
    """
    return "--" + option[2:].replace("_", "-") if option.startswith("--") else option


def spelled(option: str) -> str:
    """The lm-eval spelling of one option string (``--max-samples`` -> ``--max_samples``; a short
    option or one without ``-`` inside is left as it is).

    Args:
        option: an option string.
    """
    return "--" + option[2:].replace("-", "_") if option.startswith("--") else option


def lm_eval_spelling(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Respell every long option of ``parser`` (and of its sub-commands) the lm-eval way, keeping
    the spelling with ``-`` as a hidden alias of the same action; returns the parser.

    Args:
        parser: a built parser.
    """
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in set(action.choices.values()):
                lm_eval_spelling(sub)
            continue
        shown = list(dict.fromkeys(spelled(option) for option in action.option_strings))
        for option in dict.fromkeys([*shown, *map(former, shown)]):
            taken = parser._option_string_actions.get(option)
            if taken is not None and taken is not action:
                raise ValueError(f"{parser.prog}: {option} would name two options; rename one of them")
            parser._option_string_actions[option] = action  # shown or not, each spelling parses
        action.option_strings = shown
    return parser
