"""The judge-checking workflow on real lm-eval output: a ``--predict_only --log_samples``
run of the real SmolLM2 (``--model hf`` on the CPU), then ``uta-batch`` against the fake
Batch API, then a re-judge of the same samples that makes zero calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_batch_api import FakeBatchAPI
from sample_items import REPO_ROOT

from uta_tasks.apps.annotate import draw_packet
from uta_tasks.judge import JudgeSettings, judge_all
from uta_tasks.judge.prompt import load_template
from uta_tasks.runs.sample_items import sample_items

pytestmark = pytest.mark.slow


def _run(*args: str, timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_predict_only_samples_batch_judged_then_rejudged_for_free(
    fake_api: FakeBatchAPI, batch_metadata, smollm2_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "gen"
    generated = _run(
        "uta_tasks.cli", "--model", "hf", "--model_args", f"pretrained={smollm2_dir}", "--device", "cpu",
        "--batch_size", "8", "--tasks", "uta_ifbench_trunc", "--limit", "3", "--gen_kwargs", "max_gen_toks=40",
        "--metadata", json.dumps({"ifbench_unverifiable": "drop", "user_max_gen_toks": 16}),
        "--predict_only", "--log_samples", "--output_path", str(out), timeout=1800,
    )
    assert generated.returncode == 0, generated.stderr[-3000:]
    entries = sample_items([out])
    assert [e.kind for e in entries] == ["verdict", "verdict_ref"] * 3
    assert all(e.verdict is None and e.task == "uta_ifbench_trunc" for e in entries)
    assert {e.model for e in entries} == {str(smollm2_dir)}
    assert all(e.item.context[-1][0] == "assistant" and e.item.context[0][0] == "user" for e in entries)

    metadata = batch_metadata()
    batched = _run("uta_tasks.apps.batch.cli", str(out), "--metadata", json.dumps(metadata),
                   "--poll_interval", "0.05", timeout=300)
    assert batched.returncode == 0, batched.stderr
    summary = json.loads(batched.stdout)
    unique = len({e.item_id for e in entries})
    assert summary["submitted"] == summary["collected"] == unique and summary["unjudged"] == 0
    assert len(fake_api.submitted_ids) == len(set(fake_api.submitted_ids)) == unique

    settings = JudgeSettings.from_metadata(metadata)
    rejudge = judge_all([e.item for e in entries], settings)
    assert rejudge.calls == 0 and rejudge.cache_hits == unique and fake_api.chat_calls == 0
    template = load_template(settings.prompt)
    for entry, verdict in zip(entries, rejudge.verdicts, strict=True):
        assert verdict.prompt == template.render(entry.item)  # what was batched is what a live call sends
    packet = draw_packet(entries, n=4, seed=0)
    assert len(packet) == min(4, unique) and {it.judge_label for it in packet} == {"unjudged"}
