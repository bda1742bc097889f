"""The commands' options about the judge, each declared once here.

- :func:`add_judge_setting`: one judge setting as its own option (the quickstart's
  ``--judge_model``); its help text is the setting's spec
  (:data:`uta_tasks.judge.setting_specs.SPECS`).
- :func:`add_metadata_option`: ``--metadata``, judge settings as one JSON object, as
  lm_eval's ``--metadata`` takes them, read by :func:`metadata_from_json` (a text that is
  not a JSON object stops the command with a message naming it).
- :func:`add_calibration_option` and :func:`add_retest_option`: the judge's measured error
  (``uta-agreement --calibration_out``) and spread (``uta-rejudge --retest``), read by
  ``uta-summary``, ``uta-report`` and ``uta-gate``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

# uta_tasks.judge is imported where a judge option is declared, not here: uta-summary,
# uta-report and uta-gate take only --calibration/--retest and start without the judge
# (nor the openai client it loads).


def add_judge_setting(parser: argparse.ArgumentParser, key: str, *, note: str = "", **kwargs: Any) -> None:
    """Add ``--<key with dashes>`` (``judge_model`` -> ``--judge_model``) with the spec's doc as help.

    Args:
        parser: the command's parser.
        key: the judge setting's ``--metadata`` key.
        note: what the option's default is on this command; ``{default}`` in it stands for the
            setting's default (default: ``"default: {default}"``).
        kwargs: more :meth:`argparse.ArgumentParser.add_argument` arguments (``default``, ...).
    """
    from uta_tasks.judge.setting_specs import SPEC_BY_KEY

    spec = SPEC_BY_KEY[key]
    note = (note or "default: {default}").format(default=spec.default_value())
    text = f"{spec.help()} ({note}; the {key} setting, docs/settings.md)"
    parser.add_argument("--" + key, help=text.replace("%", "%%"), **kwargs)


def metadata_from_json(text: str, prog: str) -> dict[str, Any]:
    """The ``--metadata`` JSON object of a command line, as lm_eval takes it.

    Args:
        text: the option's value.
        prog: the command, for the message.

    Raises:
        SystemExit: the text is not a JSON object (the message says so and names the
            command; exit status 1, as the commands' other errors).
    """
    try:
        metadata = json.loads(text)
    except ValueError as exc:
        raise SystemExit(f"{prog}: --metadata must be a JSON object of judge settings ({exc})") from None
    if not isinstance(metadata, dict):
        raise SystemExit(f"{prog}: --metadata must be a JSON object of judge settings, not {type(metadata).__name__}")
    return metadata


def add_metadata_option(parser: argparse.ArgumentParser, *, when: str = "") -> None:
    """Add ``--metadata JSON`` (default ``{}``); read it with :func:`metadata_from_json`.

    Args:
        parser: the command's parser.
        when: when the command reads it, e.g. ``"with --judge"``.
    """
    from uta_tasks.judge.setting_specs import SPECS

    keys = ", ".join(spec.key for spec in SPECS)
    when = f"; read {when}" if when else ""
    parser.add_argument("--metadata", default="{}", metavar="JSON",
                        help=f"judge settings as a JSON object, as lm_eval --metadata takes them{when} "
                        f"(keys: {keys}; docs/settings.md)")


def add_calibration_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--calibration FILE``."""
    parser.add_argument("--calibration", metavar="FILE",
                        help="the judge's calibration set (uta-agreement --calibration_out): adds "
                        "genuine_followup_corrected, the follow-up rate corrected for the judge's error")


def add_retest_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--retest FILE``."""
    parser.add_argument("--retest", metavar="FILE",
                        help="retest.json of uta-rejudge --retest: the judge's own spread; rate differences and "
                        "margins smaller than it are flagged")
