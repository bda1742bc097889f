"""``uta-batch`` on a ``--predict_only`` output folder, against the fake Batch API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fake_batch_api import FakeBatchAPI
from sample_items import REPO_ROOT

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "annotate"))

from saved_runs import write_run  # noqa: E402

from uta_tasks.judge import JudgeSettings, judge_all  # noqa: E402
from uta_tasks.runs.sample_items import sample_items  # noqa: E402


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "uta_tasks.apps.batch.cli", *args], cwd=REPO_ROOT, capture_output=True, text=True,
        timeout=120, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )


def test_batch_command_judges_a_predict_only_run_for_a_later_rejudge(fake_api: FakeBatchAPI, batch_metadata, tmp_path):
    runs = tmp_path / "runs"
    write_run(runs, "org/model-a", {"uta_gsm8k": 4, "uta_gsm8k_trunc": 3, "uta_heldout_demo": 2}, judge=None)
    metadata = batch_metadata()
    fake_api.config.step = 2
    first = _cli(str(runs), "--metadata", json.dumps(metadata), "--no_wait", "--max_requests", "5")
    assert first.returncode == 3, first.stderr  # submitted, still running
    summary = json.loads(first.stdout)
    entries = sample_items([runs])
    assert summary["items"] == len(entries) == 4 + 2 * 3 + 2 * 2
    assert summary["submitted"] == summary["pending"] == summary["unique_items"]
    assert "submitted" in first.stderr and "batch_0001" in first.stderr and "input tokens" in first.stderr

    second = _cli(str(runs), "--metadata", json.dumps(metadata), "--poll_interval", "0.01")
    assert second.returncode == 0, second.stderr
    done = json.loads(second.stdout)
    assert done["submitted"] == 0 and done["pending"] == 0 and done["unjudged"] == 0
    assert done["collected"] == summary["unique_items"] and done["batch_ids"] == summary["batch_ids"]
    assert "requests" in second.stderr and "done" in second.stderr  # the progress line
    # A re-judge of the same samples with the same judge settings pays nothing.
    rejudge = judge_all([entry.item for entry in entries], JudgeSettings.from_metadata(metadata))
    assert rejudge.calls == 0 and rejudge.unjudged == 0 and fake_api.chat_calls == 0


def test_bad_metadata_is_refused_with_the_setting_named(fake_api: FakeBatchAPI, batch_metadata, tmp_path) -> None:
    runs = tmp_path / "runs"
    write_run(runs, "org/model-a", {"uta_gsm8k": 1}, judge=None)
    result = _cli(str(runs), "--metadata", json.dumps({**batch_metadata(), "judge_modle": "x"}))
    assert result.returncode == 1 and "judge_modle" in result.stderr
    result = _cli(str(runs), "--metadata", "[1]")
    assert result.returncode == 1 and "JSON object" in result.stderr
