"""``uta-agreement``: agreement between label sources, matched by item id.

    uta-agreement mini=out/rejudge-mini nano=out/rejudge-nano human=human.jsonl \\
        --reference human --json agreement.json

Each source is ``[NAME=]PATH``: a saved-samples folder (judge verdicts) or a JSONL of
labels (``uta-annotate export``; one source per annotator). Prints the table (Table 7
layout) with the confusion matrices, and writes the JSON report with ``--json``.
Exit status 1 when no pair of sources shares an item.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .compare import compare_all, report
from .sources import load_sources
from .stats import DEFAULT_REPLICATES
from .table import render_table


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``uta-agreement``."""
    parser = argparse.ArgumentParser(
        prog="uta-agreement", description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("sources", nargs="+", help="[NAME=]PATH: saved-samples folder or labels JSONL")
    parser.add_argument("--reference", help="compare every source with this one only (default: every pair)")
    parser.add_argument("--replicates", type=int, default=DEFAULT_REPLICATES, help="bootstrap resamples (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument("--json", type=Path, help="write the JSON report here")
    parser.add_argument("--no-confusion", action="store_true", help="print the table without confusion matrices")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``uta-agreement``.

    Args:
        argv: Arguments (default: ``sys.argv[1:]``).
    """
    args = build_parser().parse_args(argv)
    if args.replicates < 0:
        raise SystemExit("uta-agreement: --replicates must be 0 or more")
    try:
        sources = [source for spec in args.sources for source in load_sources(spec)]
        if len(sources) < 2:
            raise ValueError(f"need two label sources, got {[s.name for s in sources]}")
        rows = compare_all(sources, args.reference, args.replicates, args.seed)
    except (FileNotFoundError, ValueError) as exc:
        raise SystemExit(f"uta-agreement: {exc}") from None
    sys.stdout.write(render_table(rows, args.replicates, args.seed, confusion=not args.no_confusion))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report(sources, rows, args.replicates, args.seed), indent=2) + "\n")
    if rows and all(row.n == 0 for row in rows):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
