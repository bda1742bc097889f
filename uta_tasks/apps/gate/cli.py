"""``uta-gate``: decide a release from a run's results.

    uta-gate out/candidate --rules gate.yaml [--baseline out/baseline] [--strict]
             [--json gate.json] [--junit gate.xml] [--markdown gate.md]

    uta-gate out/run --paper [--tolerance PP] [--family MODEL=FAMILY]

Prints one line per rule; exits 0 (every rule holds), 1 (a rule failed) or 2 (the input
cannot decide: a file it cannot read, a malformed rule, anything else that stops it; the
message names the cause, and --junit/--json are still written, as one error). With --paper it checks the run against the
paper's published cells instead: 0 every matched cell inside, 1 one outside the run's
interval widened by the tolerance, 2 nothing comparable matched.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from uta_tasks.apps.flags import lm_eval_spelling
from uta_tasks.apps.gate.api import EXIT_UNDECIDED, run_gate
from uta_tasks.apps.gate.errors import GateInputError
from uta_tasks.apps.gate.evaluate import ERROR
from uta_tasks.apps.gate.paper import render_paper_text, run_paper_gate
from uta_tasks.apps.gate.render_junit import render_junit, render_junit_error
from uta_tasks.apps.gate.render_markdown import render_markdown
from uta_tasks.apps.gate.render_text import render_text
from uta_tasks.apps.judge_options import add_calibration_option, add_retest_option
from uta_tasks.judge.redact import install_log_redaction
from uta_tasks.paper.families import parse_families
from uta_tasks.runs import dumps_strict
from uta_tasks.runs.atomic import write_text
from uta_tasks.templates.escape import display_text


def parser() -> argparse.ArgumentParser:
    """The command line of ``uta-gate``."""
    p = argparse.ArgumentParser(prog="uta-gate", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("candidate", help="the candidate run: lm-eval --output_path folder or results_*.json")
    p.add_argument("--rules", help="rules file (YAML); required unless --paper")
    p.add_argument("--paper", action="store_true", help="check the run against the paper's published cells")
    p.add_argument("--tolerance", type=float, default=0.0, metavar="PP",
                   help="--paper: widen the run's interval by PP percentage points on each side (default 0)")
    p.add_argument("--family", action="append", default=[], metavar="MODEL=FAMILY",
                   help="--paper: the family a model is pooled in for Table 6 (repeatable)")
    p.add_argument("--baseline", help="the baseline run, for regression rules (max_drop / max_rise)")
    p.add_argument("--strict", action="store_true", default=None,
                   help="decide every rule on the point estimate instead of the interval")
    add_calibration_option(p)
    add_retest_option(p)
    p.add_argument("--json", type=Path, help="write the result as JSON here")
    p.add_argument("--junit", type=Path, help="write the result as JUnit XML here")
    p.add_argument("--markdown", type=Path, help="write the result as Markdown here (e.g. for $GITHUB_STEP_SUMMARY)")
    return lm_eval_spelling(p)


def _write(path: Path | None, text: str) -> None:
    if path is not None:
        write_text(path, text)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``uta-gate``; returns the exit code.

    Args:
        argv: arguments (default: ``sys.argv[1:]``).
    """
    install_log_redaction()  # no credential in any log line, the HTTP client's included
    p = parser()
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:
        if exc.code not in (0, None):  # argparse refused the command line (its message is above)
            _undecided(_outputs(argv), "the command line is not valid: see `uta-gate --help`")
        raise
    if args.paper == bool(args.rules):
        return _undecided(args, "give either --rules FILE or --paper")
    try:
        return _paper(args) if args.paper else _rules(args)
    except Exception as exc:  # noqa: BLE001 - exit 1 means "a rule failed": anything else that stops the gate is 2
        logging.getLogger(__name__).debug("uta-gate stopped", exc_info=True)
        return _undecided(args, f"internal error {type(exc).__name__}: {exc} (please report it)")


def _outputs(argv: list[str] | None) -> argparse.Namespace:
    """``--junit`` and ``--json`` of a command line argparse refused, so that they are written still."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--junit", type=Path)
    p.add_argument("--json", type=Path)
    try:
        return p.parse_known_args(sys.argv[1:] if argv is None else argv)[0]
    except SystemExit:  # --junit given without a value
        return argparse.Namespace(junit=None, json=None)


def _undecided(args: argparse.Namespace, cause: str) -> int:
    """Say why the gate cannot decide, and still write the JUnit and JSON files it was asked for."""
    cause = display_text(cause)
    print(f"uta-gate: cannot decide: {cause}", file=sys.stderr)
    try:
        _write(args.junit, render_junit_error(cause))
        _write(args.json, dumps_strict({"exit_code": EXIT_UNDECIDED, "error": cause}) + "\n")
    except OSError as exc:
        print(f"uta-gate: cannot write the result files either: {exc}", file=sys.stderr)
    return EXIT_UNDECIDED


def _rules(args: argparse.Namespace) -> int:
    try:
        result = run_gate(args.candidate, args.rules, args.baseline, strict=args.strict,
                          calibration=args.calibration, retest=args.retest)
    except (GateInputError, OSError, ValueError) as exc:
        return _undecided(args, str(exc))
    sys.stdout.write(render_text(result))
    for note in dict.fromkeys(r.note for r in result.results if r.status == ERROR):  # the causes, for CI logs too
        print(f"uta-gate: cannot decide: {display_text(note)}", file=sys.stderr)
    _write(args.json, dumps_strict(result.to_dict()) + "\n")
    _write(args.junit, render_junit(result))
    _write(args.markdown, render_markdown(result))
    return result.exit_code


def _paper(args: argparse.Namespace) -> int:
    try:
        result = run_paper_gate([args.candidate], args.tolerance, parse_families(args.family))
    except (OSError, ValueError) as exc:
        return _undecided(args, f"--paper: {exc}")
    sys.stdout.write(display_text(render_paper_text(result)))
    _write(args.json, dumps_strict(result.to_dict()) + "\n")
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
