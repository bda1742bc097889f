"""lm-eval end to end with the judge: a real llama-server on 127.0.0.1 serving SmolLM2
with strict JSON-schema output, reached through the real openai client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from runs import IFBENCH, NO_JUDGE, evaluate

pytestmark = pytest.mark.slow
SECRET = "sk-uta-test-0123456789-DO-NOT-LEAK"


@pytest.fixture(scope="module")
def judge_url(llama_url):
    """The session's one llama-server (tests/conftest.py)."""
    return llama_url


def _cli(out: Path, url: str, cache: Path, model_dir: Path) -> subprocess.CompletedProcess:
    meta = {
        **NO_JUDGE,
        "judge": "openai",
        "judge_base_url": str(url),
        "judge_model": url.model,
        "judge_cache": str(cache),
        "judge_max_tokens": 384,
        "metrics": "full",
    }
    cmd = [
        sys.executable, "-m", "uta_tasks.cli",
        "--model", "hf", "--model_args", f"pretrained={model_dir}", "--device", "cpu", "--batch_size", "16",
        "--tasks", ",".join(IFBENCH), "--limit", "3",
        "--gen_kwargs", "max_gen_toks=40",
        "--metadata", json.dumps(meta),
        "--log_samples", "--output_path", str(out),
    ]
    env = {**os.environ, "OPENAI_API_KEY": SECRET}
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)


def _results(out: Path) -> dict:
    (path,) = sorted(out.rglob("results_*.json"))
    return json.loads(path.read_text())["results"]


def test_judged_run_reports_metrics_and_rerun_pays_nothing(tmp_path, judge_url, smollm2_dir):
    cache = tmp_path / "judge.sqlite"
    first = _cli(tmp_path / "run1", judge_url, cache, smollm2_dir)
    assert first.returncode == 0, first.stderr[-3000:]
    results = _results(tmp_path / "run1")
    calls = 0
    for task in IFBENCH:
        m = results[task]
        for key in ("genuine_followup", "unjudged", "judge_calls", "prompt_level_strict_acc",
                    "label_plausible_followup", "label_previous_turn_restate", "genuine_pass_at_k"):
            assert f"{key},none" in m, (task, key)
        calls += m["judge_calls,none"]
        assert m["unjudged,none"] >= 0
    for task in IFBENCH[1:]:
        for key in ("genuine_followup_base", "genuine_followup_diff", "share_changed"):
            assert f"{key},none" in results[task]
    assert "trunc_emptied,none" in results["uta_ifbench_trunc"]
    assert calls > 0
    sample = json.loads(next((tmp_path / "run1").rglob("samples_uta_ifbench_trunc_*.jsonl")).read_text().splitlines()[0])
    from uta_tasks.probe.verdict_prompts import record_prompts
    from uta_tasks.schema.probe import ProbeRecord

    logged = ProbeRecord.from_json(sample["resps"][0][0])
    record = logged.to_dict()
    verdict = record["verdict"]
    assert verdict["judge_model"] == judge_url.model and verdict["prompt_version"]
    assert record_prompts(logged)["verdict"] and (verdict["raw_reply"] or verdict["status"] == "unjudged")
    if verdict["status"] == "judged":
        assert verdict["label"] and isinstance(verdict["genuine"], bool) and verdict["rationale"]

    # Replies cut at judge_max_tokens are never cached (raising the limit must help), so a
    # rerun asks for exactly those again, once each (no retry of a cut at temperature 0).
    cut = set()
    for path in (tmp_path / "run1").rglob("samples_uta_*.jsonl"):
        for line in path.read_text().splitlines():
            for text in json.loads(line)["resps"][0]:
                rec = ProbeRecord.from_json(text)
                prompts = record_prompts(rec)
                for slot in ("verdict", "verdict_ref"):
                    v = rec.verdicts()[slot]
                    if v and not v.judged and "finish_reason=length" in (v.reason or ""):
                        cut.add(json.dumps(prompts[slot], sort_keys=True))
    second = _cli(tmp_path / "run2", judge_url, cache, smollm2_dir)
    assert second.returncode == 0, second.stderr[-3000:]
    again = _results(tmp_path / "run2")
    assert sum(again[t]["judge_calls,none"] for t in IFBENCH) <= len(cut)
    for task in IFBENCH:
        if not cut:
            assert again[task]["judge_calls,none"] == 0.0
            for key in ("genuine_followup,none", "unjudged,none", "label_plausible_followup,none"):
                assert str(again[task][key]) == str(results[task][key])  # NaN-safe equality
    assert sum(again[t]["judge_cache_hits,none"] for t in IFBENCH) > 0

    # The API key never lands in a results file, a logged sample, a log or the cache.
    texts = [first.stdout, first.stderr, second.stdout, second.stderr]
    texts += [p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file() and p.suffix in {".json", ".jsonl"}]
    texts.append(cache.read_bytes().decode("latin-1"))
    assert not any(SECRET in t for t in texts)


def test_missing_key_fails_fast_before_generation(lm, backend_calls, monkeypatch, waits):
    from uta_tasks.judge import JudgeConfigError

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("UTA_JUDGE_BASE_URL", raising=False)
    with pytest.raises(JudgeConfigError, match="OPENAI_API_KEY"):
        evaluate(lm, ["uta_ifbench"], limit=1, metadata={**NO_JUDGE, "judge": "openai"})
    assert waits == []  # fails at once: no retry backoff
    assert backend_calls == []


def test_unreachable_endpoint_fails_fast_before_generation(lm, backend_calls, waits):
    from uta_tasks.judge import JudgeConfigError

    meta = {**NO_JUDGE, "judge": "openai", "judge_base_url": "http://127.0.0.1:9/v1"}
    with pytest.raises(JudgeConfigError, match="judge_base_url"):
        evaluate(lm, ["uta_ifbench"], limit=1, metadata=meta)
    assert waits == []  # fails at once: no retry backoff, no wait for a server to start
    assert backend_calls == []
