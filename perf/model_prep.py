"""Preparing the embedded model: the direct GGUF conversion (``smollm2.prepare``) against the
transformers path it replaced (tests/embedded/transformers_prep.py, the reference of the
equality tests), each side in a cold Python process::

    PYTHONPATH=$PWD python perf/model_prep.py [--rounds 2]

Each run is a fresh ``python -c`` that imports what it needs and writes the whole directory
into a new temporary folder, as ``python -m uta_tasks.embedded.smollm2`` does on a first
setup; the sides alternate so that both see the same machine load. Prints the median seconds
of each and the ratio transformers / direct (the speed-up).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIDES = {
    "direct": "from uta_tasks.embedded import smollm2; smollm2.prepare(OUT)",
    "transformers": (
        "import sys; sys.path.insert(0, 'tests/embedded'); "
        "from transformers_prep import prepare_with_transformers; "
        "from uta_tasks.embedded.smollm2 import gguf_path; prepare_with_transformers(gguf_path(), Path(OUT))"
    ),
}


def run(side: str) -> float:
    """Seconds one cold process takes to write the directory the ``side`` way."""
    work = Path(tempfile.mkdtemp(prefix=f"model-prep-{side}-"))
    code = f"from pathlib import Path; OUT = {str(work / 'model')!r}; {SIDES[side]}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    start = time.perf_counter()
    try:
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True)
        return time.perf_counter() - start
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="runs of each side (the transformers one takes ~1 min)")
    args = parser.parse_args()
    times: dict[str, list[float]] = {side: [] for side in SIDES}
    for _ in range(args.rounds):
        for side in ("transformers", "direct"):
            times[side].append(run(side))
    old, new = (statistics.median(times[side]) for side in ("transformers", "direct"))
    print(f"rounds={args.rounds} (a cold process each, imports included)")
    each = {side: ", ".join(f"{t:.1f}" for t in runs) for side, runs in times.items()}
    print(f"transformers GGUF loader + save_pretrained: {old:6.1f} s  (runs: {each['transformers']})")
    print(f"direct conversion (smollm2.prepare):        {new:6.1f} s  (runs: {each['direct']})")
    print(f"ratio transformers/direct: {old / new:.1f}x")


if __name__ == "__main__":
    main()
