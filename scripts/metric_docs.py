"""Write the manual's blocks generated from the metric table (``uta_tasks/metrics/table.py``).

    python scripts/metric_docs.py

rewrites, between their ``<!-- NAME:start -->`` / ``<!-- NAME:end -->`` markers:

* ``docs/metrics.md`` ``metrics``: the table of the probe metrics;
* ``docs/report.md`` ``report-sections``: the report's tables by task and their metrics;
* ``docs/report.md`` ``intervals``: which interval ``uta-summary`` gives each metric.

``tests/test_structure.py`` fails while a block differs from what this writes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def blocks() -> dict[tuple[str, str], Callable[[], str]]:
    """(page under docs/, marker) -> the function that writes the block."""
    from uta_tasks.apps.report.metric_tables import sections_markdown
    from uta_tasks.metrics.table import markdown_table
    from uta_tasks.runs.estimates import intervals_markdown

    return {("metrics.md", "metrics"): markdown_table, ("report.md", "report-sections"): sections_markdown,
            ("report.md", "intervals"): intervals_markdown}


def replaced(text: str, marker: str, block: str) -> str:
    """``text`` with the block between ``marker``'s comments replaced by ``block``.

    Args:
        text: the page.
        marker: the block's name.
        block: its new content.
    """
    start, end = f"<!-- {marker}:start -->\n", f"\n<!-- {marker}:end -->"
    head, rest = text.split(start, 1)
    return head + start + block + end + rest.split(end, 1)[1]


def main() -> int:
    """Rewrite every block; print the pages changed."""
    for (page, marker), write in blocks().items():
        path = ROOT / "docs" / page
        text = path.read_text()
        new = replaced(text, marker, write())
        if new != text:
            path.write_text(new)
            print(f"rewrote {path.relative_to(ROOT)} ({marker})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
