"""``uta-summary``: write ``summary.json`` (strict JSON, NaN as null) beside each run's results."""

from __future__ import annotations

import argparse
import sys

from uta_tasks.apps.judge_options import add_calibration_option
from uta_tasks.judge.redact import install_log_redaction
from uta_tasks.runs import find_runs
from uta_tasks.runs.estimates import EstimateSettings
from uta_tasks.runs.summary import write_summary


def parser() -> argparse.ArgumentParser:
    """The command line of ``uta-summary``."""
    p = argparse.ArgumentParser(prog="uta-summary", description=__doc__)
    p.add_argument("paths", nargs="+", help="lm-eval --output_path folders or results_*.json files")
    EstimateSettings.add_arguments(p)
    add_calibration_option(p)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``uta-summary``; prints each summary's path.

    Args:
        argv: arguments (default: ``sys.argv[1:]``).
    """
    install_log_redaction()  # no credential in any log line, the HTTP client's included
    args = parser().parse_args(argv)
    settings = EstimateSettings.from_args(args)
    try:
        calibration = None
        if args.calibration:
            from uta_tasks.runs.calibration import read_calibration

            calibration = read_calibration(args.calibration)
        for path in args.paths:
            for files in find_runs(path):
                print(write_summary(files, settings, calibration))
    except (OSError, ValueError) as exc:
        print(f"uta-summary: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
