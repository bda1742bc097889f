"""``uta-batch``: judge every user turn of saved samples through the OpenAI Batch API.

    uta-batch OUTPUT_DIR [OUTPUT_DIR ...] --metadata '{"judge_model": "gpt-5.4-mini"}'

Reads the lm-eval output folders written with ``--log_samples`` (a normal or a
``--predict_only`` run), submits every item not in the verdict cache, polls with a
progress line on stderr, and writes each verdict to the cache as its batch finishes.
Stop it at any time: the same command resumes the same batches. Afterwards ``uta-rejudge``
with the same judge settings finds every verdict cached (zero calls).

Exit status: 0 when every item has an outcome, 3 when batches are still running
(``--no_wait`` or ``--max_wait`` reached: rerun to collect), 1 on an error.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from uta_tasks.apps.flags import lm_eval_spelling
from uta_tasks.apps.judge_options import add_metadata_option, metadata_from_json
from uta_tasks.judge.errors import JudgeConfigError
from uta_tasks.judge.redact import install_log_redaction
from uta_tasks.judge.settings import JudgeSettings
from uta_tasks.runs.atomic import write_text
from uta_tasks.schema.probe import VERDICT_SLOTS

from .flow import BatchOptions, judge_batch
from .remote import BatchAPIError
from .requests import MAX_BYTES, MAX_REQUESTS

EXIT_PENDING = 3


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``uta-batch``."""
    parser = argparse.ArgumentParser(
        prog="uta-batch", description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("paths", nargs="+", help="lm-eval --output_path folders (or samples_*.jsonl files)")
    add_metadata_option(parser)
    parser.add_argument(
        "--kinds", default=",".join(VERDICT_SLOTS),
        help="which user turns to judge (comma-separated record fields; default: all)",
    )
    parser.add_argument("--no_wait", action="store_true", help="submit and return; a rerun collects")
    parser.add_argument("--poll_interval", type=float, default=30.0, help="seconds between polls (default 30)")
    parser.add_argument("--max_wait", type=float, default=25 * 3600.0, help="seconds of polling at most (default 25 h)")
    parser.add_argument("--no_fallback", action="store_true", help="leave failed requests unjudged (no live calls)")
    parser.add_argument("--max_requests", type=int, default=MAX_REQUESTS, help="requests per batch file")
    parser.add_argument("--max_bytes", type=int, default=MAX_BYTES, help="bytes per batch file")
    parser.add_argument("--summary", type=Path, help="also write the run summary JSON to this file")
    return lm_eval_spelling(parser)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``uta-batch``.

    Args:
        argv: Arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit status.
    """
    install_log_redaction()  # no credential in any log line, the HTTP client's included
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from uta_tasks.runs.sample_items import sample_items

    metadata = metadata_from_json(args.metadata, "uta-batch")
    options = BatchOptions(
        max_requests=args.max_requests, max_bytes=args.max_bytes, wait=not args.no_wait,
        poll_interval=args.poll_interval, max_wait=args.max_wait, fallback=not args.no_fallback,
    )
    try:
        settings = JudgeSettings.from_metadata(metadata)
        found = sample_items(args.paths, kinds=[kind.strip() for kind in args.kinds.split(",") if kind.strip()])
        run = judge_batch([entry.item for entry in found], settings, options)
    except (JudgeConfigError, BatchAPIError, FileNotFoundError, ValueError) as exc:
        raise SystemExit(f"uta-batch: {exc}") from None
    summary = {"items": len(found), **run.summary()}
    text = json.dumps(summary, indent=2)
    print(text)
    if args.summary:
        write_text(args.summary, text + "\n")
    return EXIT_PENDING if run.pending else 0


if __name__ == "__main__":
    sys.exit(main())
