"""One spelling per flag across the commands, lm-eval's (``--output_path``, ``--judge_model``):
every command's help shows its options so (uta_tasks/apps/flags.py); the former spellings
(``uta-report --out``, ``--output-path``, ``--judge-model``, ...) still work and are not shown."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from uta_tasks.apps.quickstart.cli import parse_args as quickstart_args
from uta_tasks.apps.report.cli import parser as report_parser


@pytest.mark.parametrize("flag", ["--output_path", "--out"])
def test_report_takes_output_path_and_its_former_spelling(flag):
    assert report_parser().parse_args(["out/run", flag, "report/"]).output_path == "report/"


def test_report_help_shows_output_path_only():
    shown = report_parser().format_help()
    assert "--output_path OUTPUT_PATH" in shown and "--out " not in shown and "--out\n" not in shown


def test_report_needs_an_output_folder(capsys):
    with pytest.raises(SystemExit):
        report_parser().parse_args(["out/run"])
    assert "--output_path" in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--output_path", "--output-path"])
def test_quickstart_takes_output_path_and_its_former_spelling(flag):
    assert quickstart_args([flag, "elsewhere"]).output_path == Path("elsewhere")


def test_quickstart_help_shows_output_path_only(capsys):
    assert quickstart_args([]).output_path == Path("out/quickstart")
    with pytest.raises(SystemExit):
        quickstart_args(["--help"])
    shown = capsys.readouterr().out
    assert "--output_path OUTPUT_PATH" in shown and "--output-path" not in shown


def _helps() -> dict[str, str]:
    """Every command's --help text (sub-commands included)."""
    import contextlib
    import io

    from uta_tasks.apps.agreement.cli import build_parser as agreement
    from uta_tasks.apps.annotate.cli import build_parser as annotate
    from uta_tasks.apps.batch.cli import build_parser as batch
    from uta_tasks.apps.conformance import main as conformance
    from uta_tasks.apps.gate.cli import parser as gate
    from uta_tasks.apps.plan.command import parser as plan
    from uta_tasks.apps.prelabel_check import build_parser as prelabel
    from uta_tasks.apps.rejudge.cli import main as rejudge
    from uta_tasks.apps.summary import parser as summary

    helps = {name: build().format_help() for name, build in [
        ("uta-agreement", agreement), ("uta-batch", batch), ("uta-gate", gate), ("uta-eval --plan", plan),
        ("uta-prelabel-check", prelabel), ("uta-report", report_parser), ("uta-summary", summary)]}
    annotate_parser = annotate()
    helps["uta-annotate"] = annotate_parser.format_help()
    for action in annotate_parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps.update({f"uta-annotate {name}": sub.format_help() for name, sub in action.choices.items()})
    for name, main in [("uta-rejudge", rejudge), ("uta-conformance", conformance),
                       ("quickstart", quickstart_args)]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
            main(["--help"])
        helps[name] = out.getvalue()
    return helps


def test_every_command_shows_its_options_as_lm_eval_spells_them():
    import re

    hyphenated = {name: re.findall(r"(?<![\w-])--[a-z0-9]+-[a-z0-9-]+", text) for name, text in _helps().items()}
    assert len(hyphenated) >= 13 and any(name.startswith("uta-annotate ") for name in hyphenated)
    assert not {name: found for name, found in hyphenated.items() if found}


@pytest.mark.parametrize("argv", [["--judge-model", "m", "--local-judge", "llama", "--max-gen-toks", "7"],
                                  ["--judge_model", "m", "--local_judge", "llama", "--max_gen_toks", "7"]])
def test_the_former_spelling_still_parses(argv):
    args = quickstart_args(argv)
    assert (args.judge_model, args.local_judge, args.max_gen_toks) == ("m", "llama", 7)
