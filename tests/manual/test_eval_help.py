"""``uta-eval --help`` says what uta adds to lm-eval's command line before lm-eval's own help."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from uta_tasks.apps.plan import parser as plan_parser

ROOT = Path(__file__).resolve().parents[2]


def uta_eval(*args: str) -> subprocess.CompletedProcess[str]:
    """``uta-eval ARGS`` as its console script runs it (``uta_tasks.cli:main``), on this checkout."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "uta_tasks.cli", *args], capture_output=True, text=True, env=env,
                          check=False)


@pytest.mark.parametrize("args", [("--help",), ("-h",), ("run", "--help")])
def test_help_lists_what_uta_adds_then_lm_evals_help(args):
    done = uta_eval(*args)
    assert done.returncode == 0, done.stderr
    ours, _, theirs = done.stdout.partition("usage: lm-eval")
    assert theirs, "lm-eval's own help follows"
    plan_flags = {name for action in plan_parser()._actions for name in action.option_strings
                  if name.startswith("--plan")}
    assert plan_flags >= {"--plan", "--plan_price"}
    missing = [text for text in [*sorted(plan_flags), "--tasks uta:NAME", "--tasks uta ", "--metadata",
                                 '"Settings" page', "docs/settings.md", "OPENAI_API_KEY"] if text not in ours]
    assert missing == [], f"uta-eval --help does not say {missing}:\n{ours}"
    if args[0] == "run":
        assert "--model_args" in theirs, "lm-eval's run flags follow"


def test_plan_help_is_the_plans_own():
    done = uta_eval("--plan", "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: uta-eval --plan") and "--plan_price IN,OUT" in done.stdout


def test_ls_help_is_lm_evals_alone():
    done = uta_eval("ls", "--help")
    assert done.returncode == 0, done.stderr
    assert "What uta adds" not in done.stdout and "usage: lm-eval list" in done.stdout
