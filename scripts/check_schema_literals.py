"""Fail when a status is written as a string literal outside ``uta_tasks/schema/``.

The status of a verdict is spelled once, in :mod:`uta_tasks.schema.verdict` (``JUDGED``,
``UNJUDGED``); every reader asks ``verdict.judged``. A ``"judged"`` literal anywhere else in
the package is a second spelling of that fact. So is a saved answer's completion
(:mod:`uta_tasks.schema.probe`, ``COMPLETION_AS_SAVED``, ...). ``make lint`` runs this check:

    python scripts/check_schema_literals.py [PACKAGE_DIR]

It reads the code with :mod:`ast`, so prose in docstrings, comments and f-strings
(``f"{n} judged"``) is not a literal; only a string constant equal to the status is.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = frozenset({"judged", "as_saved", "after_stop", "after_budget"})
SCHEMA_DIR = "schema"


def find_literals(package: Path) -> list[str]:
    """``path:line: literal`` for every forbidden string constant outside ``package/schema/``.

    Args:
        package: the package folder (``uta_tasks``).
    """
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if relative.parts[0] == SCHEMA_DIR:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in FORBIDDEN:
                found.append(f"{path}:{node.lineno}: {node.value!r}")
    return found


def main(argv: list[str] | None = None) -> int:
    """Print the offending literals; 1 when there is any, else 0.

    Args:
        argv: ``[PACKAGE_DIR]`` (default: ``uta_tasks`` beside this script's folder).
    """
    args = sys.argv[1:] if argv is None else argv
    package = Path(args[0]) if args else ROOT / "uta_tasks"
    found = find_literals(package)
    for line in found:
        print(line, file=sys.stderr)
    if found:
        print(
            f"{len(found)} verdict status literal(s) outside {package / SCHEMA_DIR}: use "
            "uta_tasks.schema.verdict.JUDGED (or verdict.judged on a decoded Verdict)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
