"""docs/parity.md's clause table and the default judge prompt stay in step: every line of the
rendered system prompt is a row of the table, every row is a line of the prompt, and every
row names a seed source of the paper or says it is the project's choice."""

from __future__ import annotations

import html
import re
from pathlib import Path

from uta_tasks.judge.prompt import load_template
from uta_tasks.judge.setting_specs import SPEC_BY_KEY

PARITY = Path(__file__).resolve().parents[2] / "docs" / "parity.md"
_BULLET = "- "
_SOURCES = ("summary, \"", "page, ", "figures, ")


def _default_prompt() -> str:
    return str(SPEC_BY_KEY["judge_prompt"].default)


def _clauses(version: str) -> list[str]:
    text = load_template(version).system.render()
    lines = [line.strip().removeprefix(_BULLET) for line in text.splitlines()]
    return [line for line in lines if line and not line.startswith("## ")]


def _table() -> list[tuple[str, str]]:
    text = PARITY.read_text(encoding="utf-8")
    block = text.split("<!-- clause-table:start -->", 1)[1].split("<!-- clause-table:end -->", 1)[0]
    rows = []
    for line in block.strip().splitlines()[2:]:
        cells = [html.unescape(c.strip().replace("\\|", "|")) for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        assert len(cells) == 2, line
        rows.append((cells[0], cells[1]))
    return rows


def test_the_clause_table_is_of_the_default_prompt():
    assert _default_prompt() == "followupeval-v4"
    assert f"`uta_tasks/templates/judge/{_default_prompt()}/system.j2`" in PARITY.read_text(encoding="utf-8")


def test_every_line_of_the_prompt_is_a_row_and_every_row_a_line():
    clauses = _clauses(_default_prompt())
    table = [clause for clause, _ in _table()]
    assert len(clauses) == len(set(clauses)) >= 30
    assert table == clauses  # same clauses, same order


def test_every_row_cites_a_seed_source_or_is_marked_the_projects_choice():
    for clause, source in _table():
        cited = any(marker in source for marker in _SOURCES)
        choice = "**project's choice**" in source
        assert cited or choice, clause
        assert "PROTOCOL" not in source, clause


def test_a_clause_added_to_the_prompt_without_a_row_is_caught(tmp_path):
    """The check can fail: a copy of the prompt with one more line differs from the table."""
    directory = tmp_path / "followupeval-test"
    directory.mkdir()
    source = Path(load_template(_default_prompt()).system.filename or "").parent
    system = (source / "system.j2").read_text(encoding="utf-8")
    (directory / "system.j2").write_text(system.replace("## Answer\n", "## Answer\nAlways answer genuine.\n"),
                                         encoding="utf-8")
    (directory / "user.j2").write_text((source / "user.j2").read_text(encoding="utf-8"), encoding="utf-8")
    assert "Always answer genuine." in _clauses(str(directory))
    assert _clauses(str(directory)) != [clause for clause, _ in _table()]
