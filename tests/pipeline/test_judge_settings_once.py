"""The judge settings are parsed once per task (metadata, then the environment) into the
typed value every spec of the task carries; preflight and judging use it as it is. lm-eval
logs the spec with the settings, never the API key."""

from __future__ import annotations

import json

from pipeline_run import DATA, evaluate, records
from test_metrics import _item_calls, thanks_after_full_answers
from test_rejudge import _save

TASKS = ["uta_gsm8k", "uta_gsm8k_trunc"]
SECRET = "sk-test-NEVER-LOG-THIS-41c9e07d"
KEY_ENV = "UTA_TEST_JUDGE_KEY"


def test_a_run_parses_the_judge_settings_once_per_task_and_logs_no_secret(scripted, judge_server, monkeypatch,
                                                                         tmp_path):
    from uta_tasks import lm_eval_task
    from uta_tasks.judge import JudgeSettings

    parsed: list[dict] = []
    parse = JudgeSettings.from_metadata.__func__  # type: ignore[attr-defined]

    def counting(cls, metadata=None, environ=None):
        parsed.append(dict(metadata or {}))
        return parse(cls, metadata, environ)

    built: list[str] = []
    init = lm_eval_task.UTATask.__init__

    def counting_init(self, config=None, **kwargs):
        built.append((config or {}).get("task", "?"))
        init(self, config, **kwargs)

    monkeypatch.setattr(JudgeSettings, "from_metadata", classmethod(counting))
    monkeypatch.setattr(lm_eval_task.UTATask, "__init__", counting_init)
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("UTA_JUDGE_TIMEOUT", "30")  # a setting from the environment, read with the metadata
    scripted.script = thanks_after_full_answers
    meta = {"judge_base_url": judge_server.base_url, "judge_model": "fault-judge", "judge_cache": "none",
            "judge_api_key_env": KEY_ENV, "gsm8k_data_files": str(DATA / "gsm8k_test.jsonl"),
            "user_max_gen_toks": 16}
    results = evaluate(scripted, TASKS, limit=3, metadata=meta, bootstrap_iters=0)

    assert sorted(set(built)) == TASKS
    assert len(parsed) == len(built), f"{len(parsed)} parses for {len(built)} task objects: {parsed}"
    calls = _item_calls(judge_server)
    assert len(calls) >= 3 and {c.authorization for c in calls} == {f"Bearer {SECRET}"}  # the key was sent
    assert all(r.verdict is not None and r.verdict.judged for r in records(results, "uta_gsm8k"))

    for task in TASKS:
        for sample in results["samples"][task]:
            spec = json.loads(json.dumps(sample["arguments"], default=str))
            text = json.dumps(spec)
            assert '"judge_timeout": 30.0' in text and f'"judge_api_key_env": "{KEY_ENV}"' in text
            assert '"api_key_env_named": true' in text
    _save(json.loads(json.dumps(results, default=str)), tmp_path / "run", TASKS)
    files = sorted((tmp_path / "run").rglob("*.json*"))
    assert len(files) == 1 + len(TASKS)
    for path in files:
        data = path.read_text()
        assert KEY_ENV in data  # the variable's name is logged ...
        assert SECRET not in data and "NEVER-LOG-THIS" not in data, path.name  # ... its value never
