"""``uta-rejudge OUTPUT_DIR... --metadata '{"judge_model": ...}' --output_path DIR``."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from uta_tasks.apps.flags import lm_eval_spelling
from uta_tasks.apps.judge_options import add_metadata_option, metadata_from_json
from uta_tasks.judge.redact import install_log_redaction

log = logging.getLogger("uta_tasks.apps.rejudge")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``uta-rejudge``; returns the exit code."""
    install_log_redaction()  # no credential in any log line, the HTTP client's included
    parser = argparse.ArgumentParser(
        prog="uta-rejudge",
        description="Judge the user turns of saved lm-eval samples again (no model needed) and recompute the metrics.",
    )
    parser.add_argument("paths", nargs="+", type=Path, help="lm-eval --output_path folders written with --log_samples")
    add_metadata_option(parser)
    parser.add_argument("--output_path", type=Path, required=True,
                        help="where the re-judged run folder goes (the layout below each given folder is kept)")
    parser.add_argument("--retest", type=int, metavar="K",
                        help="judge every turn K >= 3 times with the verdict cache off (the cache is left untouched) "
                        "and write retest.json: per task the share of flipped decisions, the spread of the rate "
                        "across repeats and Krippendorff's alpha; no results or samples are written")
    parser.add_argument("--bootstrap_iters", type=int, default=100000, help="as lm_eval's (default: %(default)s)")
    args = lm_eval_spelling(parser).parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="[uta-rejudge] %(message)s", stream=sys.stderr)
    metadata = metadata_from_json(args.metadata, "uta-rejudge")
    from uta_tasks.judge import JudgeConfigError, JudgeUnjudgedError
    from uta_tasks.runs import write_run_folders as write

    from .run import rejudge

    if args.retest is not None:
        return _retest(args.paths, metadata, args.retest, args.output_path)
    try:
        tasks = rejudge(args.paths, metadata, bootstrap_iters=args.bootstrap_iters)
    except (JudgeConfigError, OSError, ValueError, JudgeUnjudgedError) as exc:
        log.error("%s", exc)
        return 2
    except Exception as exc:  # noqa: BLE001 - anything else that stops it is a bad input too: exit 2, no traceback
        return _internal(exc)
    date = time.strftime("%Y-%m-%dT%H-%M-%S")
    try:
        paths = write(tasks, args.output_path, metadata, date)
    except (OSError, ValueError) as exc:
        log.error("%s", exc)
        return 2
    for task in tasks:
        rate = task.metrics.get("genuine_followup,none")
        log.info("%s: genuine_followup=%s judge_calls=%s", task.task, rate, task.metrics.get("judge_calls,none"))
    for path in paths:
        log.info("results: %s", path)
    return 0


def _retest(paths: Sequence[Path], metadata: dict, repeats: int, output_path: Path) -> int:
    from uta_tasks.judge import JudgeConfigError, JudgeUnjudgedError
    from uta_tasks.judge.settings import JudgeSettings

    from .retest import render, retest, write_retest

    try:
        results = retest(paths, metadata, repeats)
    except (JudgeConfigError, OSError, ValueError, JudgeUnjudgedError) as exc:
        log.error("%s", exc)
        return 2
    except Exception as exc:  # noqa: BLE001 - as in main
        return _internal(exc)
    sys.stdout.write(render(results))
    path = write_retest(results, output_path, JudgeSettings.from_metadata(metadata).describe())
    log.info("retest: %s", path)
    return 0


def _internal(exc: Exception) -> int:
    log.debug("uta-rejudge stopped", exc_info=True)
    log.error("internal error %s: %s (please report it)", type(exc).__name__, exc)
    return 2


if __name__ == "__main__":
    sys.exit(main())
