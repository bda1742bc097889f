"""Every console script works on a plain ``pip install uta-tasks`` (no extras): the wheel in a
fresh venv where nothing outside its core dependencies can be imported (no matplotlib, no
torch, no test tools), each script's main path run once on saved samples, with the judge and
the batch API of ``tests/judge_batch/fake_batch_api.py`` on 127.0.0.1."""

from __future__ import annotations

import json
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from wheel_env import REPO_ROOT, WheelVenv

sys.path.insert(0, str(REPO_ROOT / "tests" / "judge_batch"))
sys.path.insert(0, str(REPO_ROOT / "tests" / "judge"))
sys.path.insert(0, str(REPO_ROOT / "tests" / "annotate"))

from fake_batch_api import FakeBatchAPI, FakeConfig  # noqa: E402
from fault_server import MODEL  # noqa: E402
from saved_runs import write_run  # noqa: E402

pytestmark = pytest.mark.slow


def _scripts() -> set[str]:
    import tomllib

    return set(tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["scripts"])


def test_plain_install_blocks_what_only_extras_bring(plain_wheel_venv: WheelVenv) -> None:
    result = plain_wheel_venv.run("python", "-c", "import matplotlib", check=False)
    assert result.returncode != 0 and "No module named 'matplotlib'" in result.stderr
    code = "import importlib.util as u; print([u.find_spec(m) is None for m in ('torch', 'selenium', 'lm_eval')])"
    assert plain_wheel_venv.run("python", "-c", code).stdout.split()[-3:] == ["[True,", "True,", "False]"]


def test_every_console_script_runs_on_a_plain_install(plain_wheel_venv: WheelVenv, tmp_path: Path) -> None:
    venv = plain_wheel_venv
    ran: set[str] = set()

    def run(script: str, *args: str) -> str:
        path = venv.bin / script
        assert path.is_file(), f"{script} was not installed from the wheel"
        ran.add(script)
        return venv.run(str(path), *args, timeout=600).stdout

    runs = tmp_path / "runs"
    folder = write_run(runs, "org/model-a", {"uta_gsm8k": 6, "uta_gsm8k_trunc": 6}, None)  # a --predict_only run
    for samples in folder.glob("samples_*.jsonl"):  # the docs' gold answers, in GSM8K's form
        lines = [json.loads(line) for line in samples.read_text().splitlines()]
        for line in lines:
            n = line["doc_id"]
            line["doc"]["answer"] = f"{n + 3} x {n + 2}\n#### {(n + 3) * (n + 2)}"
        samples.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with FakeBatchAPI(FakeConfig()) as api:
        meta = json.dumps({"judge_base_url": api.base_url, "judge_model": MODEL,
                           "judge_cache": str(tmp_path / "judge.sqlite"), "judge_max_retries": 1})
        run("uta-batch", str(runs), "--metadata", meta, "--poll_interval", "0")
        run("uta-rejudge", str(runs), "--metadata", meta, "--output_path", str(tmp_path / "judged"))
        assert "on 41 constructed cases" in run("uta-conformance", "--metadata", meta)
    judged = tmp_path / "judged"
    (results,) = judged.rglob("results_*.json")
    assert results.parent.name == "org__model-a"
    assert json.loads(results.read_text())["rejudge"]["judge"]["judge_model"] == MODEL

    summary = json.loads(Path(run("uta-summary", str(judged)).strip().splitlines()[-1]).read_text())
    row = summary["tasks"]["uta_gsm8k_trunc"]
    assert row["samples"] is True and row["metrics"]["genuine_followup"]["n"] == 6
    rules = tmp_path / "gate.yaml"
    rules.write_text("version: 1\nsettings: {min_judged: 1}\nrules:\n"
                     "  - {task: uta_gsm8k_trunc, metric: genuine_followup, op: '>=', value: 0.0}\n"
                     "  - {task: uta_gsm8k_trunc, metric: genuine_followup, max_drop: 0}\n")
    assert "gate PASSED" in run("uta-gate", str(judged), "--rules", str(rules), "--baseline", str(judged))

    printed = run("uta-report", str(judged), "--output_path", str(tmp_path / "report"), "--iterations", "200").split()
    html = Path(printed[0]).read_text()
    svgs = [Path(p) for p in printed if p.endswith(".svg")]
    assert svgs and html.count("<svg") == sum(p.read_text().count("<svg") for p in svgs)  # paper panels nest <svg>
    assert all(p.read_text().split("\n", 1)[1].strip() in html for p in svgs), "every figure file is inlined"
    assert all(ET.parse(p).getroot().tag.endswith("svg") for p in svgs)

    assert "judged" in run("uta-agreement", f"live={judged}", f"judged={judged}", "--replicates", "0")
    run("uta-prelabel-check", str(judged))
    db = tmp_path / "ann.sqlite"
    assert "#key=" in run("uta-annotate", "invite", "alice", "--db", str(db))
    assert "wrote 0 answer(s)" in run("uta-annotate", "export", "--db", str(db), "--output", str(tmp_path / "h.jsonl"))
    assert "uta_gsm8k_trunc" in run("uta-eval", "ls", "tasks")
    compared = tmp_path / "cmp"  # a comparison's page over the judged run, as its one model's
    shutil.copytree(judged, compared / "runs" / "model-a")
    models = tmp_path / "models.yaml"
    models.write_text("tasks: uta_gsm8k,uta_gsm8k_trunc\nmodels:\n"
                      "  - {name: model-a, model: hf, model_args: pretrained=org/model-a}\n")
    assert "Page:" in run("uta-compare", str(models), "--output_path", str(compared), "--page_only",
                          "--iterations", "200")
    assert (compared / "index.html").is_file() and (compared / "reports" / "model-a" / "report.html").is_file()
    assert ran == _scripts(), f"not run: {_scripts() - ran}"
