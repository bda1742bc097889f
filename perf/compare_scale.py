"""``uta-compare``'s page over 1,000,000 records: 100 models of 10,000 records each (issue 53 item 3).

Each model's folder is made of the records a real run writes (``perf/_real_records.py``: the
live-judged scripted run of the three gsm8k tasks that ``perf/tools_scale.py`` replicates, about
5 kB a record). A model's records are the template's lines with new ``doc_id`` values, as
``tools_scale.py`` writes them, drawn so that the models differ: for model ``m`` of ``M`` a
document's line is drawn (seeded) from the template's lines of that task whose user turn was judged
genuine with probability ``m / (M - 1)``, else from the others; so the follow-up rates spread from
about 0 to about 100% and neighbours are a percentage point apart (their rank intervals overlap).
Nothing else in a line changes. The folders hold no ``summary.json``: the page reads every samples
file, as on the first page of a comparison.

``uta-compare models.yaml --output_path ROOT --page_only --model_reports skip`` then runs in a child
process (each model's own report is built when its run ends, or by a page without
``--model_reports skip``; ``uta-report`` on one model is ``tools_scale.py``'s row). Measured: wall
seconds from start to exit; CPU seconds of the process and its workers (``os.wait4``); the peak of
the resident memory of the whole process tree, sampled every 0.1 s (psutil) and summed over the
processes (pages a worker shares with its parent are counted twice: an upper bound). The ratios:
wall seconds / 300 s and peak MB / 1,000 MB, each at most 1 (the issue's goal: 5 minutes and 1 GB
on a 2-core machine). Run from the repository root::

    PYTHONPATH=$PWD python perf/compare_scale.py [--models 100] [--per_model 10000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _real_records import _copies  # noqa: E402
from tools_scale import template_apart  # noqa: E402

SECONDS_GOAL = 300.0
MEGABYTES_GOAL = 1000.0
MODELS, PER_MODEL = 100, 10_000
SEED = 53


def _pools(template: Path) -> dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]]:
    """Per samples file: its lines (split around ``doc_id``) whose user turn was judged genuine, and the others."""
    out = {}
    for path in sorted(template.glob("samples_*.jsonl")):
        genuine, other = [], []
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                head, tail, _ = _copies(line)
                (genuine if json.loads(line).get("genuine_followup") == 1.0 else other).append((head, tail))
        out[path.name] = (genuine, other)
    return out


def build(template: Path, root: Path, models: int, per_model: int) -> tuple[Path, int]:
    """Write ``models`` run folders under ``root/runs/`` and the comparison's YAML; the YAML and the records written."""
    pools = _pools(template)
    (results_path,) = template.glob("results_*.json")
    results = json.loads(results_path.read_text(encoding="utf-8"))
    per_task = -(-per_model // len(pools))  # rounded up: at least per_model records a model
    for task in results.get("n-samples", {}):
        results["n-samples"][task] = {"original": per_task, "effective": per_task}
    entries, written = [], 0
    for m in range(models):
        name = f"model-{m:03d}"
        folder = root / "runs" / name / template.name
        folder.mkdir(parents=True, exist_ok=True)
        draw = random.Random(SEED * 1000 + m)
        share = m / max(1, models - 1)
        for file_name, (genuine, other) in pools.items():
            with (folder / file_name).open("w", encoding="utf-8") as sink:
                for doc_id in range(per_task):
                    pool = genuine if (draw.random() < share and genuine) or not other else other
                    head, tail = pool[draw.randrange(len(pool))]
                    sink.write(f"{head}{doc_id}{tail}\n")
            written += per_task
        (folder / results_path.name).write_text(json.dumps(results, default=str), encoding="utf-8")
        entries.append(f"  - {{name: {name}, model: hf, model_args: pretrained=org/{name}}}")
    config = root / "models.yaml"
    config.write_text("tasks: uta_gsm8k,uta_gsm8k_trunc,uta_gsm8k_question\nmodels:\n" + "\n".join(entries) + "\n")
    return config, written


def measure_page(config: Path, root: Path) -> dict[str, float]:
    """The page in a child process: wall and CPU seconds, the process tree's peak resident MB."""
    import psutil

    argv = [sys.executable, "-m", "uta_tasks.apps.compare", str(config), "--output_path", str(root), "--page_only",
            "--model_reports", "skip"]
    peak = [0.0]
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stop = threading.Event()

    def sample() -> None:
        try:
            parent = psutil.Process(process.pid)
        except psutil.NoSuchProcess:
            return
        while not stop.is_set():
            try:
                tree = [parent, *parent.children(recursive=True)]
                total = 0
                for proc in tree:
                    try:
                        total += proc.memory_info().rss
                    except psutil.NoSuchProcess:
                        pass
                peak[0] = max(peak[0], total / 2**20)
            except psutil.NoSuchProcess:
                return
            stop.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    stop.set()
    sampler.join(timeout=5)
    errors = process.stderr.read().decode(errors="replace") if process.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError(f"uta-compare exited {code}: {errors[-2000:]}")
    return {"seconds": seconds, "cpu_seconds": usage.ru_utime + usage.ru_stime, "megabytes": peak[0],
            "largest_process_megabytes": usage.ru_maxrss / 1024}


def measure(models: int = MODELS, per_model: int = PER_MODEL, keep: Path | None = None) -> dict[str, Any]:
    """Make the template run and the model folders, then the page; the figures."""
    root = Path(tempfile.mkdtemp(prefix="uta-compare-scale-", dir=keep))
    try:
        template, made = template_apart(root / "template")
        started = time.perf_counter()
        config, records = build(template, root / "cmp", models, per_model)
        built = time.perf_counter() - started
        size = sum(p.stat().st_size for p in (root / "cmp" / "runs").rglob("*") if p.is_file()) / 1e6
        page = measure_page(config, root / "cmp")
        board = json.loads((root / "cmp" / "leaderboard.json").read_text())
        return {**page, "records": records, "models": models, "build_seconds": built, "template_seconds": made,
                "megabytes_on_disk": size, "rankings": len(board["rankings"]),
                "ranked": min(len(r["models"]) for r in board["rankings"])}
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)


def rows_from(figures: dict[str, Any], load: str) -> list[dict[str, Any]]:
    """``make bench`` rows from the figures."""
    note = (f"{figures['models']} models x {figures['records'] // figures['models']:,} records = "
            f"{figures['records']:,} records ({figures['megabytes_on_disk']:,.0f} MB on disk, replicated from a "
            f"live-judged scripted run), {figures['rankings']} rankings of {figures['ranked']} models; page "
            f"{figures['seconds']:.0f} s wall, {figures['cpu_seconds']:.0f} s CPU (process and workers), peak "
            f"{figures['megabytes']:.0f} MB summed over the process tree (largest process "
            f"{figures['largest_process_megabytes']:.0f} MB); folders built in {figures['build_seconds']:.0f} s; "
            f"each model's own report not built (--model_reports skip); load average {load}")
    return [
        {"name": f"uta-compare page over {figures['records']:,} records: wall seconds / {SECONDS_GOAL:g} s",
         "ratio": figures["seconds"] / SECONDS_GOAL, "goal": 1.0, "direction": "at most", "note": note},
        {"name": f"uta-compare page over {figures['records']:,} records: peak MB of the process tree / "
                 f"{MEGABYTES_GOAL:g} MB", "ratio": figures["megabytes"] / MEGABYTES_GOAL, "goal": 1.0,
         "direction": "at most", "note": note},
    ]


def bench() -> list[dict[str, Any]]:
    """``make bench`` rows (perf/README.md): 100 models x 10,000 records."""
    before = os.getloadavg()[0]
    figures = measure()
    return rows_from(figures, f"{before:.1f} -> {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=MODELS)
    parser.add_argument("--per_model", type=int, default=PER_MODEL)
    parser.add_argument("--keep", type=Path, default=None, help="keep the folders under this folder")
    args = parser.parse_args()
    before = os.getloadavg()
    figures = measure(args.models, args.per_model, args.keep)
    print(json.dumps(figures, indent=2))
    for row in rows_from(figures, f"{before[0]:.1f} -> {os.getloadavg()[0]:.1f}"):
        print(f"{row['name']}: {row['ratio']:.3f} (goal at most {row['goal']:g})")


if __name__ == "__main__":
    main()
