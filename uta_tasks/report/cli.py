"""``uta-report``: a self-contained HTML report (plus SVG figures and Markdown) of one or more runs.

    uta-report out/run_t0 out/run_t07 --out report/
"""

from __future__ import annotations

import argparse
import sys

from uta_tasks.report.api import build_report
from uta_tasks.runs import EstimateSettings


def parser() -> argparse.ArgumentParser:
    """The command line of ``uta-report``."""
    p = argparse.ArgumentParser(prog="uta-report", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folders", nargs="+", help="lm-eval --output_path folders (any mix of models, temperatures, tasks)")
    p.add_argument("--out", required=True, help="folder for report.html, report.md and figures/")
    p.add_argument("--title", default="User-turn probe report", help="page title")
    p.add_argument("--max-samples", type=int, default=100, help="docs per task in the sample browser (default 100)")
    EstimateSettings.add_arguments(p)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``uta-report``; prints the paths it wrote.

    Args:
        argv: arguments (default: ``sys.argv[1:]``).
    """
    args = parser().parse_args(argv)
    try:
        files = build_report(args.folders, args.out, title=args.title, max_samples=args.max_samples,
                             settings=EstimateSettings.from_args(args))
    except (OSError, ValueError) as exc:
        print(f"uta-report: {exc}", file=sys.stderr)
        return 2
    print(files.html)
    print(files.markdown)
    for fig in files.figures:
        print(fig.svg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
