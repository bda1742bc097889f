"""``uta-report``: a self-contained HTML report (plus SVG figures and Markdown) of one or more runs.

    uta-report out/run_t0 out/run_t07 --output_path report/
"""

from __future__ import annotations

import argparse
import logging
import sys

from uta_tasks.apps.flags import lm_eval_spelling
from uta_tasks.apps.judge_options import add_calibration_option, add_retest_option
from uta_tasks.apps.report.api import build_report
from uta_tasks.judge.redact import install_log_redaction
from uta_tasks.paper.families import parse_families
from uta_tasks.runs import EstimateSettings


def parser() -> argparse.ArgumentParser:
    """The command line of ``uta-report``."""
    p = argparse.ArgumentParser(prog="uta-report", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folders", nargs="+", help="lm-eval --output_path folders (any mix of models, temperatures, tasks)")
    out = p.add_mutually_exclusive_group(required=True)
    out.add_argument("--output_path", help="folder for report.html, report.md and figures/")
    out.add_argument("--out", dest="output_path", help=argparse.SUPPRESS)  # the former spelling, a hidden alias
    p.add_argument("--title", default="User-turn probe report", help="page title")
    p.add_argument("--max-samples", type=int, default=100, help="docs per task in the sample browser (default 100)")
    p.add_argument("--family", action="append", default=[], metavar="MODEL=FAMILY",
                   help="the family a model is pooled in for the paper's Table 6 (repeatable)")
    p.add_argument("--tolerance", type=float, default=0.0, metavar="PP",
                   help="widen each interval of the reference check by PP percentage points (default 0)")
    EstimateSettings.add_arguments(p)
    add_calibration_option(p)
    add_retest_option(p)
    return lm_eval_spelling(p)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``uta-report``; prints the paths it wrote.

    Args:
        argv: arguments (default: ``sys.argv[1:]``).
    """
    install_log_redaction()  # no credential in any log line, the HTTP client's included
    args = parser().parse_args(argv)
    try:
        files = build_report(args.folders, args.output_path, title=args.title, max_samples=args.max_samples,
                             settings=EstimateSettings.from_args(args), calibration=args.calibration,
                             retest=args.retest, families=parse_families(args.family), tolerance_pp=args.tolerance)
    except (OSError, ValueError) as exc:
        print(f"uta-report: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - anything else that stops it: exit 2 with the cause, no traceback
        logging.getLogger(__name__).debug("uta-report stopped", exc_info=True)
        print(f"uta-report: internal error {type(exc).__name__}: {exc} (please report it)", file=sys.stderr)
        return 2
    print(files.html)
    print(files.markdown)
    for fig in files.figures:
        print(fig.svg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
