"""The readers on a real small run (SmolLM2 via --model hf, judged by the local llama-server)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from uta_tasks.runs import find_runs, load_run
from uta_tasks.schema import output

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _reject(token):
    raise AssertionError(f"non-strict JSON token {token}")


def test_uta_summary_on_a_real_run(uta_real_run):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "uta_tasks.apps.summary", str(uta_real_run)], check=False, capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    path = Path(proc.stdout.strip())
    (files,) = find_runs(uta_real_run)
    assert path == files.summary
    data = json.loads(path.read_text(), parse_constant=_reject)
    assert sorted(data["tasks"]) == ["uta_ifbench", "uta_ifbench_trunc"]
    prov = data["provenance"]
    assert prov["judge_model"] == "smollm2-135m-instruct" and prov["prompt_version"] == "followupeval-v4"
    assert prov["temperature"] == 0.0 and prov["samples_logged"] is True
    assert prov["lm_eval_version"] == "0.4.13"


def test_counts_agree_with_the_records_and_with_lm_eval(uta_real_run):
    run, streamed = load_run(uta_real_run, all_docs=True), load_run(uta_real_run)
    from uta_tasks.runs import estimate

    for name in ("uta_ifbench", "uta_ifbench_trunc"):
        task = run.tasks[name]
        verdicts = [r.verdict for d in task.docs for r in d.records]
        judged = [v for v in verdicts if v is not None and v.judged]
        est = estimate(run, name, output.GENUINE)
        assert estimate(streamed, name, output.GENUINE) == est  # one pass, no doc kept: the same estimate
        lm_eval_value = task.value(output.GENUINE)
        if judged:
            assert est.n == len(judged) and est.k == sum(bool(v.genuine) for v in judged)
            assert est.value == pytest.approx(lm_eval_value)  # one repeat: pooled rate == lm-eval's
            assert est.interval.low <= est.value <= est.interval.high
        else:
            assert est.value is None and lm_eval_value is None
        unjudged = estimate(run, name, output.UNJUDGED_SHARE)
        assert unjudged.k == task.value(output.UNJUDGED)
        assert unjudged.n == len(task.docs) * (1 if task.perturbation == "none" else 2)
