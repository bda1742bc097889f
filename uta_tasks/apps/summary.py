"""``uta-summary``: write ``summary.json`` (strict JSON, NaN as null) beside each run's results."""

from __future__ import annotations

import argparse
import logging
import sys

from uta_tasks.apps.flags import lm_eval_spelling
from uta_tasks.apps.judge_options import add_calibration_option
from uta_tasks.judge.redact import install_log_redaction
from uta_tasks.runs import Run, find_runs, load_run
from uta_tasks.runs.estimates import EstimateSettings
from uta_tasks.runs.provenance import answers_source
from uta_tasks.runs.summary import write_summary


def parser() -> argparse.ArgumentParser:
    """The command line of ``uta-summary``."""
    p = argparse.ArgumentParser(prog="uta-summary", description=__doc__)
    p.add_argument("paths", nargs="+", help="lm-eval --output_path folders or results_*.json files")
    EstimateSettings.add_arguments(p)
    add_calibration_option(p)
    return lm_eval_spelling(p)


def _say_saved_answers(run: Run) -> None:
    """On stderr, where the answers of a run that read them from a saved run came from."""
    read = {name: answers_source(task) for name, task in run.tasks.items() if task.is_uta}
    for name, source in sorted((name, source) for name, source in read.items() if source):
        hub = source.get("hub")
        where = f"the Hub dataset {hub['repo']} at commit {hub['revision']}" if hub else source.get("path")
        print(f"uta-summary: {name}: answers read from a saved run, {where} ({source.get('samples')}), not generated",
              file=sys.stderr)


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
                run = load_run(files)
                print(write_summary(run, settings, calibration))
                _say_saved_answers(run)
    except (OSError, ValueError) as exc:
        print(f"uta-summary: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - anything else that stops it: exit 2 with the cause, no traceback
        logging.getLogger(__name__).debug("uta-summary stopped", exc_info=True)
        print(f"uta-summary: internal error {type(exc).__name__}: {exc} (please report it)", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
