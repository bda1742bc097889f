"""One spelling per flag across the commands, lm-eval's (``--output_path``): the output folder of
``uta-report`` and of the quickstart is ``--output_path``, as in ``lm_eval`` and ``uta-rejudge``;
the former spellings (``uta-report --out``, the quickstart's ``--output-path``) still work and
are not shown."""

from __future__ import annotations

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
