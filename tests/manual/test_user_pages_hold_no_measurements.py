"""The user manual says what the tools do; figures measured on our machines and the history of
choices live in ``docs/dev/`` (issue 46 item 6). A speed ratio (``1.03x``), a "measured by / on"
sentence or a timing of a run on a named CPU on a user page is a measurement that ages with the
machine it was taken on."""

from __future__ import annotations

import re

from doc_commands import user_pages

MEASUREMENT = re.compile(r"\b\d+\.\d+x\b|\b[Mm]easured (by|on|from)\b|\b(Xeon|EPYC)\b|\d+(\.\d+)? s / \d+(\.\d+)? s")


def test_no_user_page_carries_a_measurement():
    found = [f"{page.name}:{number}: {line.strip()}" for page in user_pages()
             for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
             if MEASUREMENT.search(line)]
    assert not found, "move these to docs/dev/ (the developers' history):\n" + "\n".join(found)
