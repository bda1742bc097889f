"""``uta-gate``: decide a release from a run's results.

    uta-gate out/candidate --rules gate.yaml [--baseline out/baseline] [--strict]
             [--json gate.json] [--junit gate.xml] [--markdown gate.md]

Prints one line per rule; exits 0 (every rule holds), 1 (a rule failed) or 2 (the input
cannot decide; the message names the cause).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from uta_tasks.gate.api import EXIT_UNDECIDED, run_gate
from uta_tasks.gate.errors import GateInputError
from uta_tasks.gate.render_junit import render_junit
from uta_tasks.gate.render_markdown import render_markdown
from uta_tasks.gate.render_text import render_text
from uta_tasks.runs.jsonio import dumps_strict


def parser() -> argparse.ArgumentParser:
    """The command line of ``uta-gate``."""
    p = argparse.ArgumentParser(prog="uta-gate", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("candidate", help="the candidate run: lm-eval --output_path folder or results_*.json")
    p.add_argument("--rules", required=True, help="rules file (YAML)")
    p.add_argument("--baseline", help="the baseline run, for regression rules (max_drop / max_rise)")
    p.add_argument("--strict", action="store_true", default=None,
                   help="decide every rule on the point estimate instead of the interval")
    p.add_argument("--calibration", help="judge calibration set (uta-agreement --calibration-out), read by rules on "
                   "genuine_followup_corrected")
    p.add_argument("--retest", help="retest.json of uta-rejudge --retest: flag margins smaller than the judge's spread")
    p.add_argument("--json", type=Path, help="write the result as JSON here")
    p.add_argument("--junit", type=Path, help="write the result as JUnit XML here")
    p.add_argument("--markdown", type=Path, help="write the result as Markdown here (e.g. for $GITHUB_STEP_SUMMARY)")
    return p


def _write(path: Path | None, text: str) -> None:
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``uta-gate``; returns the exit code.

    Args:
        argv: arguments (default: ``sys.argv[1:]``).
    """
    args = parser().parse_args(argv)
    try:
        result = run_gate(args.candidate, args.rules, args.baseline, strict=args.strict,
                          calibration=args.calibration, retest=args.retest)
    except GateInputError as exc:
        print(f"uta-gate: cannot decide: {exc}", file=sys.stderr)
        return EXIT_UNDECIDED
    sys.stdout.write(render_text(result))
    _write(args.json, dumps_strict(result.to_dict()) + "\n")
    _write(args.junit, render_junit(result))
    _write(args.markdown, render_markdown(result))
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
