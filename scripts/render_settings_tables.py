"""Write the generated settings tables into the manual's settings page, after a spec changed
(a default, a range, a doc line): the probe's table (uta_tasks/probe/task_settings.py) and the
judge's (uta_tasks/judge/setting_specs.py), each between its markers in docs/settings.md.
The tests that keep the page equal to the specs then pass again.

    PYTHONPATH=$PWD python scripts/render_settings_tables.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from uta_tasks.judge.setting_specs import settings_table_markdown as judge_table
from uta_tasks.probe.task_settings import settings_table_markdown as task_table

PAGE = Path(__file__).resolve().parents[1] / "docs" / "settings.md"
# marker name -> (table, text between the start marker and the table, and after the table)
TABLES = {"task-settings": (task_table, "\n", ""), "judge-settings": (judge_table, "\n", "\n")}


def render(text: str) -> str:
    """``text`` (the settings page) with every generated table written afresh.

    Args:
        text: the page.

    Raises:
        ValueError: a table's markers are missing or repeated (the message names them).
    """
    for name, (table, before, after) in TABLES.items():
        start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
        if text.count(start) != 1 or text.count(end) != 1:
            raise ValueError(f"{PAGE}: put exactly one {start} and one {end} around the {name} table")
        head, rest = text.split(start)
        text = head + start + before + table() + after + end + rest.split(end, 1)[1]
    return text


def main() -> int:
    """Rewrite docs/settings.md in place; prints whether it changed."""
    old = PAGE.read_text(encoding="utf-8")
    new = render(old)
    PAGE.write_text(new, encoding="utf-8")
    print(f"{PAGE}: {'updated' if new != old else 'already up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
