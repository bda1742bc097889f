"""uta-summary, uta-gate and uta-report on large run folders: seconds and peak memory at
10,000 and 100,000 samples, and how the cost grows from one to the other.

Each folder is written the way lm-eval writes a run (``tests/runs/run_builder.py``:
results file and samples files, per-doc metrics from the package's own metric functions)
with three tasks (``uta_gsm8k``, ``_trunc``, ``_question``), one sample per doc, one
verdict in seven unjudged, by a child process: Linux counts the peak memory of the process
that starts a command in that command's own peak (``/bin/true`` started from here reads as
this process's peak), and the build of 100,000 samples takes several hundred MB. Each tool then runs in a child process of its
own, timed from start to exit, its peak resident memory read from the kernel (``os.wait4``),
on the folder without a ``summary.json`` (each tool reads the samples files; a current
``summary.json`` would spare the gate and the report that read). The ratios: CPU seconds
(user + system, from the same ``os.wait4``) at 100k / (10 x CPU seconds at 10k) (1.0:
linear; CPU time, not wall time, so that the load other processes put on a shared machine
between the two runs does not pass for growth), peak MB at 100k / (10 x peak MB at 10k) the
same for memory, and at 100k the wall seconds against 60 s and the memory against 400 MB
(issue 37 item 3). Run from the repository root::

    PYTHONPATH=$PWD python perf/tools_scale.py [--sizes 10000,100000] [--keep DIR]
    PYTHONPATH=$PWD python perf/tools_scale.py --sizes 10000 --profile uta-report   # where the time goes
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "runs"))

from run_builder import Doc, RunSpec, Turn, write_run  # noqa: E402

TASKS = ("uta_gsm8k", "uta_gsm8k_trunc", "uta_gsm8k_question")
RULES = """version: 1
settings: {confidence: 0.95, min_judged: 50, strict: false}
rules:
  - "uta_gsm8k: accuracy >= 0.30"
  - "uta_gsm8k_trunc: genuine_followup >= 0.10"
  - "uta_gsm8k: unjudged_share <= 0.5"
"""
SECONDS_GOAL = 60.0
MEGABYTES_GOAL = 400.0


@dataclass
class Cost:
    """One tool on one folder."""

    seconds: float
    cpu_seconds: float
    megabytes: float
    exit_code: int


def build(samples: int, out: Path) -> Path:
    """Write a run folder of ``samples`` samples under ``out``; return the model folder."""
    per_task = samples // len(TASKS)
    tasks = {}
    for task in TASKS:
        docs = []
        for index in range(per_task):
            genuine = None if index % 7 == 0 else index % 3 != 0
            docs.append(Doc([Turn(genuine, ref=index % 5 == 0)], correct=index % 2 == 0))
        tasks[task] = docs
    results = write_run(out, RunSpec(tasks=tasks))
    return results.parent


def build_apart(samples: int, out: Path) -> tuple[Path, float]:
    """:func:`build` in a child process (see the module docstring); the model folder and seconds."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--build", str(samples), str(out)], check=True,
                          capture_output=True, text=True)
    return Path(done.stdout.strip().splitlines()[-1]), time.perf_counter() - start


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


def run(argv: list[str]) -> Cost:
    """Run one command to its end: wall seconds, CPU seconds and its peak resident memory (MB)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):  # uta-gate exits 1 when a rule fails: still a full read
        error = process.stderr.read().decode(errors="replace") if process.stderr else ""
        raise RuntimeError(f"{' '.join(argv)} exited {process.returncode}: {error[-2000:]}")
    return Cost(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, process.returncode)


def measure(sizes: list[int], keep: Path | None = None) -> dict[int, dict[str, Any]]:
    """Build one folder per size, run the three tools on it; the costs and the folder's size."""
    out: dict[int, dict[str, Any]] = {}
    for samples in sizes:
        work = Path(tempfile.mkdtemp(prefix=f"uta-scale-{samples}-", dir=keep))
        try:
            folder, built = build_apart(samples, work / "run")
            size = sum(path.stat().st_size for path in folder.iterdir()) / 1e6
            costs = {}
            for name, argv in tools(folder, work).items():
                (folder / "summary.json").unlink(missing_ok=True)  # each tool reads the samples itself
                costs[name] = run(argv)
            out[samples] = {"costs": costs, "megabytes_on_disk": size, "build_seconds": built}
        finally:
            if keep is None:
                shutil.rmtree(work, ignore_errors=True)
    return out


def rows_from(figures: dict[int, dict[str, Any]], small: int, large: int, load: str) -> list[dict[str, Any]]:
    """``make bench`` rows from the measured costs."""
    rows = []
    for name in figures[large]["costs"]:
        low, high = figures[small]["costs"][name], figures[large]["costs"][name]
        scale = large / small
        note = (f"{small:,}: {low.seconds:.1f} s ({low.cpu_seconds:.1f} s CPU), {low.megabytes:.0f} MB; {large:,} "
                f"({figures[large]['megabytes_on_disk']:.0f} MB on disk): {high.seconds:.1f} s "
                f"({high.cpu_seconds:.1f} s CPU), {high.megabytes:.0f} MB; load average {load}")
        rows.append({"name": f"{name}: CPU seconds at {large:,} / ({scale:g} x CPU seconds at {small:,})",
                     "ratio": high.cpu_seconds / (scale * low.cpu_seconds), "goal": 1.0, "direction": "at most",
                     "note": note})
        rows.append({"name": f"{name}: peak MB at {large:,} / ({scale:g} x peak MB at {small:,})",
                     "ratio": high.megabytes / (scale * low.megabytes), "goal": 1.0, "direction": "at most",
                     "note": note})
        rows.append({"name": f"{name} at {large:,} samples: seconds / {SECONDS_GOAL:g} s",
                     "ratio": high.seconds / SECONDS_GOAL, "goal": 1.0, "direction": "at most", "note": note})
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
        folder = build(samples, work / "run")
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
    parser.add_argument("--build", nargs=2, metavar=("SAMPLES", "DIR"), default=None,
                        help="only write a folder of SAMPLES samples under DIR and print its model folder")
    args = parser.parse_args()
    if args.build:
        print(build(int(args.build[0]), Path(args.build[1])))
        return
    sizes = [int(value) for value in args.sizes.split(",")]
    if args.profile:
        profile(args.profile, sizes[0], args.top)
        return
    before = os.getloadavg()[0]
    figures = measure(sizes, args.keep)
    print(f"load average {before:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| samples | MB on disk | build s | tool | seconds | CPU seconds | peak MB | exit |")
    print("|---|---|---|---|---|---|---|---|")
    for samples, entry in figures.items():
        for name, cost in entry["costs"].items():
            print(f"| {samples:,} | {entry['megabytes_on_disk']:.0f} | {entry['build_seconds']:.1f} | {name} "
                  f"| {cost.seconds:.1f} | {cost.cpu_seconds:.1f} | {cost.megabytes:.0f} | {cost.exit_code} |")
    if len(sizes) >= 2:
        for row in rows_from(figures, sizes[0], sizes[-1], f"{before:.1f}"):
            print(f"{row['name']}: {row['ratio']:.3f}")


if __name__ == "__main__":
    main()
