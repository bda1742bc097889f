"""The console scripts of the judge-checking workflow resolve to their ``main`` functions."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import tomllib

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


@pytest.mark.parametrize("script", ["uta-batch", "uta-annotate", "uta-agreement"])
def test_console_script_resolves_and_answers_help(script: str, capsys) -> None:
    target = tomllib.loads(PYPROJECT.read_text())["project"]["scripts"][script]
    module, _, function = target.partition(":")
    main = getattr(importlib.import_module(module), function)
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    assert f"usage: {script}" in capsys.readouterr().out
