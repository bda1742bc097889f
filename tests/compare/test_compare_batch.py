"""``uta-compare`` with ``judge_via: batch``: the user turns of every model go to the Batch API in
one ``uta-batch`` (the fake Files/Batches API of tests/judge_batch), then each model's
``uta-rejudge`` reads its verdicts from the cache: no live judge call. Each model's generation
(``uta-eval --predict_only``) is already in ``generated/<model>/`` (what that command writes, made
in this process), so the comparison skips it, as on a resume."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml
from compare_env import GSM8K, ROOT, TOKENIZER, process_env
from published import generated_run

pytestmark = pytest.mark.slow

TASKS = ["uta_gsm8k", "uta_gsm8k_trunc"]


def test_every_model_is_judged_in_one_batch_then_read_from_the_cache(tmp_path):
    sys.path.insert(0, str(ROOT / "tests" / "judge_batch"))
    from fake_batch_api import FakeBatchAPI
    from fault_server import MODEL

    with FakeBatchAPI() as api:
        metadata = {"gsm8k_data_files": str(GSM8K), "judge_base_url": api.base_url, "judge_model": MODEL,
                    "judge_cache": str(tmp_path / "judge.sqlite"), "judge_max_tokens": 256, "user_max_gen_toks": 24}
        models = []
        for kind in ("curious", "echo"):
            model_args = f"pretrained=org/{kind},tokenizer={TOKENIZER},script={kind}"
            generated_run(kind, model_args, tmp_path / "cmp" / "generated" / kind, TASKS, metadata, 3, 48)
            models.append({"name": kind, "model": "uta-scripted", "model_args": model_args})
        config = tmp_path / "models.yaml"
        config.write_text(yaml.safe_dump({"tasks": TASKS, "limit": 3, "gen_kwargs": "max_gen_toks=48",
                                          "metadata": metadata, "judge_via": "batch", "models": models}))
        done = subprocess.run([sys.executable, "-m", "uta_tasks.apps.compare", str(config), "--output_path",
                               str(tmp_path / "cmp"), "--poll_interval", "0.05", "--iterations", "200",
                               "--model_reports", "skip"], cwd=ROOT, env=process_env(), capture_output=True,
                              text=True, timeout=900)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert "[1/2] curious: generate skipped" in done.stdout and "Batch API: the user turns of 2 model(s)" in \
            done.stdout
        assert len(api.batches) == 1 and api.chat_calls == 0
        assert len(api.submitted_ids) == len(set(api.submitted_ids)) == 2 * 3 * 2  # 2 models x 3 docs x (u, u')
    board = json.loads((tmp_path / "cmp" / "leaderboard.json").read_text())
    rows = {r["model"]: r for r in board["rankings"][0]["models"]}
    assert rows["curious"]["value"] == 1.0 and rows["echo"]["value"] == 0.0 and rows["curious"]["rank"] == 1
    summary = json.loads(next((tmp_path / "cmp" / "runs" / "curious").rglob("summary.json")).read_text())
    assert summary["provenance"]["verdicts"]["source"] == "rejudge"
