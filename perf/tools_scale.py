"""uta-summary, uta-gate and uta-report on large run folders: seconds and peak memory at
10,000 and 100,000 samples, and how the cost grows from one to the other.

Each folder is made of the records a real run writes (``perf/_real_records.py``): one small
template run of the three gsm8k tasks (``uta_gsm8k``, ``_trunc``, ``_question``; 200 docs each),
made by lm-eval with the scripted model of the tests under the real two-pass hook and judged
live by the real judge client against the judge double, 1 answer in 50 and 1 user turn in
40 of 5-20 kB, about 1 verdict in 6 unjudged; then its samples lines are written again with
new ``doc_id`` values up to the size. The record format is whatever the hook writes, so the
benchmark follows it. The template run and each folder are made by a child process: Linux
counts the peak memory of the process that starts a command in that command's own peak
(``/bin/true`` started from here reads as this process's peak). Each tool then runs in a
child process of its own, timed from start to exit, its peak resident memory read from the
kernel (``os.wait4``), on the folder without a ``summary.json`` (each tool reads the samples
files; a current ``summary.json`` would spare the gate and the report that read). The
ratios: CPU seconds (user + system, from the same ``os.wait4``) at 100k / (10 x CPU seconds
at 10k) (1.0: linear; CPU time, not wall time, so that the load other processes put on a
shared machine between the two runs does not pass for growth), peak MB at 100k / (10 x peak
MB at 10k) the same for memory, and at 100k the CPU seconds against 60 s and the memory
against 400 MB (issue 45 item 2; wall seconds are in the note). Run from the repository root::

    PYTHONPATH=$PWD python perf/tools_scale.py [--sizes 10000,100000] [--keep DIR]
    PYTHONPATH=$PWD python perf/tools_scale.py --sizes 10000 --profile uta-report   # where the time goes
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _real_records import replicate, template_run  # noqa: E402

RULES = """version: 1
settings: {confidence: 0.95, min_judged: 50, strict: false}
rules:
  - "uta_gsm8k: accuracy >= 0.30"
  - "uta_gsm8k_trunc: genuine_followup >= 0.10"
  - "uta_gsm8k: unjudged_share <= 0.5"
"""
SECONDS_GOAL = 60.0
MEGABYTES_GOAL = 400.0
# A tool still running after this many wall seconds is stopped: its figures are then lower
# bounds (already past the goal), and make bench's time limit for this script holds.
TOOL_CAP_SECONDS = 90.0


@dataclass
class Cost:
    """One tool on one folder."""

    seconds: float
    cpu_seconds: float
    megabytes: float
    exit_code: int
    stopped: bool = False

    @property
    def bound(self) -> str:
        """``at least `` when the tool was stopped at :data:`TOOL_CAP_SECONDS` (the figures are lower bounds)."""
        return "at least " if self.stopped else ""


def _child(*argv: str) -> tuple[Path, float]:
    """This script with ``argv`` in a child process (see the module docstring): the folder it
    prints last, and its seconds."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, *argv], check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"perf/tools_scale.py {' '.join(argv)} exited {done.returncode}: {done.stderr[-3000:]}")
    return Path(done.stdout.strip().splitlines()[-1]), time.perf_counter() - start


def template_apart(out: Path) -> tuple[Path, float]:
    """:func:`~_real_records.template_run` in a child process; its model folder and seconds."""
    return _child("--template", str(out))


def build_apart(samples: int, template: Path, out: Path) -> tuple[Path, float]:
    """:func:`~_real_records.replicate` in a child process; the model folder and seconds."""
    return _child("--build", str(samples), str(template), str(out))


def tools(folder: Path, work: Path) -> dict[str, list[str]]:
    """The three commands on ``folder``."""
    rules = work / "rules.yaml"
    rules.write_text(RULES)
    bin_dir = Path(sys.executable).parent
    return {
        "uta-summary": [str(bin_dir / "uta-summary"), str(folder)],
        "uta-gate": [str(bin_dir / "uta-gate"), str(folder), "--rules", str(rules)],
        "uta-report": [str(bin_dir / "uta-report"), str(folder), "--output_path", str(work / "report")],
    }


def run(argv: list[str], cap: float = TOOL_CAP_SECONDS) -> Cost:
    """Run one command to its end, or stop it after ``cap`` wall seconds: wall seconds, CPU
    seconds and its peak resident memory (MB)."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=errors)
        timer = threading.Timer(cap, process.kill)
        timer.start()
        _pid, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        stopped = seconds >= cap and process.returncode == -signal.SIGKILL
        if process.returncode not in (0, 1) and not stopped:  # uta-gate exits 1 when a rule fails: still a full read
            errors.seek(0)
            error = errors.read().decode(errors="replace")
            raise RuntimeError(f"{' '.join(argv)} exited {process.returncode}: {error[-2000:]}")
    return Cost(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, process.returncode, stopped)


def measure(sizes: list[int], keep: Path | None = None) -> dict[int, dict[str, Any]]:
    """Make the template run, then one folder per size from it; run the three tools on each.
    The costs, the folder's size, the seconds to build it, and the template's."""
    out: dict[int, dict[str, Any]] = {}
    root = Path(tempfile.mkdtemp(prefix="uta-scale-", dir=keep))
    try:
        template, made = template_apart(root / "template")
        per_sample = sum(path.stat().st_size for path in template.glob("samples_*")) / \
            sum(1 for path in template.glob("samples_*") for _ in path.open("rb"))
        for samples in sizes:
            work = root / str(samples)
            folder, built = build_apart(samples, template, work / "run")
            size = sum(path.stat().st_size for path in folder.iterdir()) / 1e6
            costs = {}
            for name, argv in tools(folder, work).items():
                (folder / "summary.json").unlink(missing_ok=True)  # each tool reads the samples itself
                costs[name] = run(argv)
            out[samples] = {"costs": costs, "megabytes_on_disk": size, "build_seconds": built,
                            "template_seconds": made, "template_kb_per_sample": per_sample / 1e3}
            if keep is None:
                shutil.rmtree(work, ignore_errors=True)
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return out


def rows_from(figures: dict[int, dict[str, Any]], small: int, large: int, load: str) -> list[dict[str, Any]]:
    """``make bench`` rows from the measured costs."""
    rows = []
    for name in figures[large]["costs"]:
        low, high = figures[small]["costs"][name], figures[large]["costs"][name]
        scale = large / small
        note = (f"records of a live-judged scripted run ({figures[large]['template_kb_per_sample']:.1f} kB a sample), "
                f"replicated; {small:,}: {low.bound}{low.cpu_seconds:.1f} s CPU ({low.seconds:.1f} s wall), "
                f"{low.megabytes:.0f} MB; {large:,} ({figures[large]['megabytes_on_disk']:.0f} MB on disk): "
                f"{high.bound}{high.cpu_seconds:.1f} s CPU ({high.seconds:.1f} s wall), {high.megabytes:.0f} MB; "
                f"load average {load}")
        if low.stopped or high.stopped:
            note += (f"; stopped after {TOOL_CAP_SECONDS:g} s wall (TOOL_CAP_SECONDS): the figures of a stopped run "
                     "are lower bounds, so a ratio above 1 is a miss, and a growth ratio with a stopped 10k run "
                     "means nothing")
        rows.append({"name": f"{name}: CPU seconds at {large:,} / ({scale:g} x CPU seconds at {small:,})",
                     "ratio": high.cpu_seconds / (scale * low.cpu_seconds), "goal": 1.0, "direction": "at most",
                     "note": note})
        rows.append({"name": f"{name}: peak MB at {large:,} / ({scale:g} x peak MB at {small:,})",
                     "ratio": high.megabytes / (scale * low.megabytes), "goal": 1.0, "direction": "at most",
                     "note": note})
        rows.append({"name": f"{name} at {large:,} samples: CPU seconds / {SECONDS_GOAL:g} s",
                     "ratio": high.cpu_seconds / SECONDS_GOAL, "goal": 1.0, "direction": "at most", "note": note})
        rows.append({"name": f"{name} at {large:,} samples: peak memory / {MEGABYTES_GOAL:g} MB",
                     "ratio": high.megabytes / MEGABYTES_GOAL, "goal": 1.0, "direction": "at most", "note": note})
    return rows


def bench() -> list[dict[str, Any]]:
    """``make bench`` rows (perf/README.md): 10k and 100k samples."""
    before = os.getloadavg()[0]
    figures = measure([10_000, 100_000])
    return rows_from(figures, 10_000, 100_000, f"{before:.1f} -> {os.getloadavg()[0]:.1f}")


def profile(tool: str, samples: int, top: int) -> None:
    """Run one tool in this process under cProfile on a fresh folder and print where its time goes."""
    import cProfile
    import importlib
    import pstats

    entry = {"uta-summary": "uta_tasks.apps.summary", "uta-gate": "uta_tasks.apps.gate.cli",
             "uta-report": "uta_tasks.apps.report.cli"}[tool]
    with tempfile.TemporaryDirectory(prefix="uta-scale-profile-") as tmp:
        work = Path(tmp)
        folder = replicate(template_apart(work / "template")[0], samples, work / "run")
        argv = tools(folder, work)[tool][1:]
        main = importlib.import_module(entry).main
        sys.argv = [tool, *argv]
        profiler = cProfile.Profile()
        profiler.enable()
        try:
            main()
        except SystemExit:
            pass
        profiler.disable()
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated sample counts")
    parser.add_argument("--keep", type=Path, default=None, help="write the folders under DIR and keep them")
    parser.add_argument("--profile", choices=("uta-summary", "uta-gate", "uta-report"), default=None,
                        help="profile this tool in-process at the first size instead")
    parser.add_argument("--top", type=int, default=30, help="--profile: functions shown")
    parser.add_argument("--template", type=Path, default=None,
                        help="only make the template run under DIR and print its model folder")
    parser.add_argument("--build", nargs=3, metavar=("SAMPLES", "TEMPLATE", "DIR"), default=None,
                        help="only write a folder of SAMPLES samples from the TEMPLATE model folder under DIR "
                             "and print its model folder")
    args = parser.parse_args()
    if args.template:
        logging.basicConfig(level=logging.ERROR)  # the double's unjudged verdicts are meant
        print(template_run(args.template))
        return
    if args.build:
        print(replicate(Path(args.build[1]), int(args.build[0]), Path(args.build[2])))
        return
    sizes = [int(value) for value in args.sizes.split(",")]
    if args.profile:
        profile(args.profile, sizes[0], args.top)
        return
    before = os.getloadavg()[0]
    figures = measure(sizes, args.keep)
    print(f"load average {before:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    first = next(iter(figures.values()))
    print(f"template run: {first['template_seconds']:.1f} s, {first['template_kb_per_sample']:.1f} kB a sample")
    print("| samples | MB on disk | build s | tool | seconds | CPU seconds | peak MB | exit |")
    print("|---|---|---|---|---|---|---|---|")
    for samples, entry in figures.items():
        for name, cost in entry["costs"].items():
            print(f"| {samples:,} | {entry['megabytes_on_disk']:.0f} | {entry['build_seconds']:.1f} | {name} "
                  f"| {cost.bound}{cost.seconds:.1f} | {cost.bound}{cost.cpu_seconds:.1f} | {cost.megabytes:.0f} "
                  f"| {'stopped' if cost.stopped else cost.exit_code} |")
    if len(sizes) >= 2:
        for row in rows_from(figures, sizes[0], sizes[-1], f"{before:.1f}"):
            print(f"{row['name']}: {row['ratio']:.3f}")


if __name__ == "__main__":
    main()
