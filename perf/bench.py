"""``make bench``: every benchmark in ``perf/``, one table of ratios, each against its baseline.

A script in ``perf/`` takes part when it defines ``bench()`` (the convention, with every
goal, is in ``perf/README.md``): it measures its baseline and its subject in its own
process and returns rows ``{"name", "ratio", "goal", "direction", "note"}``. This runner
finds those scripts without importing them, runs each ``bench()`` in a child process of
its own (so one script's imports, memory and crash touch no other), and prints one
Markdown table. A benchmark the issue asks for whose script is missing, has no
``bench()`` or fails gets a "not measured" row that says why: no number is made up.
The last line names every ratio that misses its goal (and what was not measured).

Run from the repository root::

    PYTHONPATH=$PWD python perf/bench.py [--only judge_throughput,two_pass_overhead] [--list]
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PERF = Path(__file__).resolve().parent
ROOT = PERF.parent
MARKER = "BENCH-ROWS "
DIRECTIONS = {"at most": "<=", "at least": ">="}

# Seconds each script may run, chosen so that every one fits TOTAL_SECONDS on an idle
# 2-core machine (perf/README.md gives the reasons); a script not named here gets
# DEFAULT_LIMIT, and tests/perf/test_bench_runner.py checks that the limits of every script
# with bench(), each with its GRACE_SECONDS, sum to at most TOTAL_SECONDS.
TIME_LIMITS: dict[str, int] = {
    "two_pass_overhead": 150,
    "judge_throughput": 245,
    "judge_client_cpu": 60,
    "judge_schema_speed": 245,
    "tools_scale": 135,
    "probe_from_samples": 145,
    "compare_scale": 185,
}
DEFAULT_LIMIT = 60
TOTAL_SECONDS = 20 * 60
GRACE_SECONDS = 5

# The benchmarks issue 37 asks `make bench` to show, by script: a missing one is a
# "not measured" row naming the script and the part of the issue that builds it.
EXPECTED: dict[str, str] = {
    "two_pass_overhead": "the two-pass hook against the raw backend",
    "judge_throughput": "the judge against the endpoint's capacity",
    "judge_schema_speed": "the local judge with the reply schema against without it (issue 37 item 2)",
    "tools_scale": "uta-summary, uta-gate and uta-report at 10k and 100k samples (issue 37 item 3)",
    "probe_from_samples": "the probe from saved samples against a full run (issue 35)",
    "compare_scale": "uta-compare's page over 1,000,000 records, 100 models (issue 53 item 3)",
}


@dataclass(frozen=True)
class Row:
    """One line of the table.

    Attributes:
        name: What is compared with what.
        ratio: The measured ratio, None when not measured.
        goal: The ratio it must reach, None when there is none.
        direction: ``at most`` or ``at least`` (the ratio against the goal).
        note: Figures behind the ratio (baseline, load average) or why it was not measured.
        source: The script.
    """

    name: str
    ratio: float | None
    goal: float | None
    direction: str
    note: str
    source: str

    @property
    def missed(self) -> bool:
        """A measured ratio on the wrong side of its goal."""
        if self.ratio is None or self.goal is None:
            return False
        return self.ratio > self.goal if self.direction == "at most" else self.ratio < self.goal


def row_from(raw: Any, source: str) -> Row:
    """Check one row a script returned.

    Args:
        raw: The row, a dict.
        source: The script's name (named in the error).

    Raises:
        ValueError: The row does not follow the convention of perf/README.md.
    """
    where = f"perf/{source}.py bench()"
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"]:
        raise ValueError(f"{where}: each row must be a dict with a non-empty 'name' (perf/README.md), got {raw!r}")
    direction = raw.get("direction", "at most")
    if direction not in DIRECTIONS:
        raise ValueError(f"{where}: row {raw['name']!r}: direction must be one of {list(DIRECTIONS)}, "
                         f"got {direction!r}")
    numbers = {}
    for key in ("ratio", "goal"):
        value = raw.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not math.isfinite(value)):
            raise ValueError(f"{where}: row {raw['name']!r}: {key} must be a finite number or null, got {value!r}")
        numbers[key] = None if value is None else float(value)
    note = raw.get("note", "")
    if numbers["ratio"] is None and not note:
        raise ValueError(f"{where}: row {raw['name']!r} has no ratio: its 'note' must say why it was not measured")
    return Row(raw["name"], numbers["ratio"], numbers["goal"], direction, str(note), source)


def not_measured(source: str, why: str) -> Row:
    """The row of a benchmark that could not report."""
    return Row(EXPECTED.get(source, source), None, None, "at most", f"not measured: {why}", source)


def table(rows: list[Row]) -> list[str]:
    """The table's lines; the last names the ratios that miss their goals."""
    lines = ["| benchmark | ratio | goal | met | script | figures |", "|---|---|---|---|---|---|"]
    for row in rows:
        ratio = "not measured" if row.ratio is None else f"{row.ratio:.3f}"
        goal = "-" if row.goal is None else f"{DIRECTIONS[row.direction]} {row.goal:g}"
        met = "-" if row.ratio is None or row.goal is None else ("no" if row.missed else "yes")
        lines.append(f"| {row.name} | {ratio} | {goal} | {met} | {row.source} | {row.note} |")
    missed = [f"{row.name} ({row.ratio:.3f}, goal {DIRECTIONS[row.direction]} {row.goal:g})"
              for row in rows if row.missed]
    unmeasured = [row.name for row in rows if row.ratio is None]
    last = "goals missed: " + ("; ".join(missed) if missed else "none")
    if unmeasured:
        last += f" (not measured: {'; '.join(unmeasured)})"
    lines.append("")
    lines.append(last)
    return lines


def has_bench(path: Path) -> bool:
    """Whether a script defines a top-level ``bench()`` (read, not imported)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return any(isinstance(node, ast.FunctionDef) and node.name == "bench" for node in tree.body)


def discover(folder: Path = PERF) -> tuple[list[str], list[str]]:
    """The scripts with ``bench()``, and those without (their own commands only)."""
    with_bench, without = [], []
    for path in sorted(folder.glob("*.py")):
        if path.stem == Path(__file__).stem or path.stem.startswith("_"):
            continue
        (with_bench if has_bench(path) else without).append(path.stem)
    return with_bench, without


def limit_of(source: str) -> int:
    """The time limit of ``perf/<source>.py`` in seconds."""
    return TIME_LIMITS.get(source, DEFAULT_LIMIT)


def _echo(stream: Any, source: str, found: list[str]) -> None:
    """Show the child's output as it comes, prefixed by its script; keep its rows' lines."""
    for line in stream:
        line = line.rstrip("\n")
        if line.startswith(MARKER):
            found.append(line[len(MARKER):])
        else:
            print(f"[{source}] {line}", file=sys.stderr, flush=True)


def _stop(process: subprocess.Popen[str]) -> None:
    """Stop a child that overran: SIGTERM to its process group, SIGKILL after the grace."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=GRACE_SECONDS)
            return
        except subprocess.TimeoutExpired:
            continue


def run_one(source: str, limit: float | None = None, folder: Path = PERF) -> list[Row]:
    """Run ``<folder>/<source>.py``'s ``bench()`` in a child process, at most ``limit`` seconds
    (default :func:`limit_of`), and read its rows."""
    limit = limit_of(source) if limit is None else limit
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--child", source,
                                "--folder", str(folder)], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True,
                               start_new_session=True)  # its own process group: stopped whole on a timeout
    found: list[str] = []
    reader = threading.Thread(target=_echo, args=(process.stdout, source, found), daemon=True)
    reader.start()
    try:
        process.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        _stop(process)
        reader.join(timeout=GRACE_SECONDS)
        return [not_measured(source, f"timed out after {limit:g} s (perf/bench.py TIME_LIMITS); "
                                     "its output is above")]
    except KeyboardInterrupt:  # its own process group gets no Ctrl-C from the terminal: stop it here
        _stop(process)
        raise
    reader.join(timeout=GRACE_SECONDS)  # a grandchild left holding the pipe does not hold the table
    if process.returncode != 0 or not found:
        return [not_measured(source, f"perf/{source}.py bench() failed (exit {process.returncode}); "
                                     "its output is above")]
    try:
        return [row_from(raw, source) for raw in json.loads(found[-1])]
    except ValueError as exc:
        return [not_measured(source, str(exc))]


def run_all(selected: list[str], with_bench: list[str], folder: Path = PERF,
            limits: dict[str, float] | None = None, total: float = TOTAL_SECONDS) -> list[Row]:
    """Every selected benchmark's rows, each script within its limit and all within ``total``
    seconds: a script the budget no longer reaches gets a "not started" row.

    Args:
        selected: The scripts, in the table's order.
        with_bench: Those that define ``bench()``.
        folder: Where the scripts are.
        limits: Seconds per script (default :func:`limit_of`).
        total: The whole run's budget in seconds.
    """
    start = time.monotonic()
    rows: list[Row] = []
    for source in selected:
        if source in with_bench:
            left = math.floor(total - (time.monotonic() - start))
            limit = min((limits or {}).get(source, limit_of(source)), left)
            if limit <= 0:
                rows.append(not_measured(source, f"not started: the bench's {total:g} s were used up"))
                continue
            print(f"[bench] perf/{source}.py (at most {limit:.0f} s) ...", file=sys.stderr, flush=True)
            began = time.monotonic()
            rows.extend(run_one(source, limit, folder))
            print(f"[bench] perf/{source}.py: {time.monotonic() - began:.0f} s", file=sys.stderr, flush=True)
        elif (folder / f"{source}.py").exists():
            rows.append(not_measured(source, f"perf/{source}.py has no bench() (perf/README.md)"))
        else:
            rows.append(not_measured(source, f"perf/{source}.py does not exist yet"))
    return rows


def _terminated(signum: int, _frame: Any) -> None:
    raise SystemExit(128 + signum)


def child(source: str, folder: Path = PERF) -> None:
    """In the child: import the script, call ``bench()``, print its rows after :data:`MARKER`.
    SIGTERM (the runner's time limit) raises ``SystemExit``, so that the script's ``with``
    blocks and ``finally`` clauses stop what it started."""
    signal.signal(signal.SIGTERM, _terminated)
    sys.path.insert(0, str(folder))
    try:
        module = __import__(source)
        rows = module.bench()
    except Exception:  # noqa: BLE001 - reported by the parent as a "not measured" row
        traceback.print_exc()
        sys.exit(1)
    print(MARKER + json.dumps(rows), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated script names (default: every one)")
    parser.add_argument("--list", action="store_true", help="list the scripts and exit")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, default=PERF, help=argparse.SUPPRESS)  # the tests' fake scripts
    parser.add_argument("--limit", action="append", default=[], metavar="SCRIPT=SECONDS",
                        help="another time limit for one script (repeatable; default: TIME_LIMITS)")
    args = parser.parse_args()
    if args.child:
        child(args.child, args.folder)
        return
    # Ctrl-C stops the bench (and the benchmark running) even where it was started with SIGINT
    # ignored, as a shell without job control starts background commands
    signal.signal(signal.SIGINT, signal.default_int_handler)
    limits = {}
    for entry in args.limit:
        name, _, seconds = entry.partition("=")
        try:
            limits[name] = float(seconds)
        except ValueError:
            sys.exit(f"perf/bench.py --limit {entry!r}: expected SCRIPT=SECONDS, e.g. tools_scale=600")
    with_bench, without = discover(args.folder)
    if args.list:
        print("with bench():", ", ".join(with_bench) or "none")
        print("without (run on their own):", ", ".join(without) or "none")
        return
    only = [name for name in args.only.split(",") if name]
    unknown = [name for name in only if name not in with_bench and name not in EXPECTED]
    if unknown:
        sys.exit(f"perf/bench.py --only: {unknown} is not a perf/ script with bench(); see --list")
    expected = EXPECTED if args.folder == PERF else {}
    selected = only or sorted(set(with_bench) | set(expected), key=lambda name: (name not in expected, name))
    start = time.monotonic()
    rows = run_all(selected, with_bench, args.folder, limits)
    print(f"{time.monotonic() - start:.0f} s in all (budget {TOTAL_SECONDS} s); "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores after the run; "
          f"scripts without bench(), not run: {', '.join(without) or 'none'}")
    print("\n".join(table(rows)))


if __name__ == "__main__":
    main()
