"""The judge settings a probe spec carries: parsed once, logged without a secret, rebuilt from
the logged dict without reading the environment again."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from uta_tasks.judge import JudgeConfigError, JudgeSettings
from uta_tasks.schema.probe import ProbeSpec

SECRET = "sk-test-NEVER-LOG-THIS-0b5d"
MESSAGES = [{"role": "user", "content": "What is 6 x 7?"}]


def test_the_logged_settings_rebuild_the_same_value_without_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_JUDGE_KEY", SECRET)
    monkeypatch.setenv("UTA_JUDGE_TIMEOUT", "30")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    settings = JudgeSettings.from_metadata({"judge_model": "m", "judge_api_key_env": "MY_JUDGE_KEY"})
    assert settings.timeout == 30.0 and settings.base_url_paired and settings.api_key_env_named

    logged = json.loads(json.dumps(settings.to_dict()))
    assert SECRET not in json.dumps(logged) and logged["judge_api_key_env"] == "MY_JUDGE_KEY"
    for name in ("UTA_JUDGE_TIMEOUT", "OPENAI_BASE_URL", "MY_JUDGE_KEY"):
        monkeypatch.delenv(name)
    monkeypatch.setenv("UTA_JUDGE_MODEL", "another")
    rebuilt = JudgeSettings.from_dict(logged)
    assert rebuilt == settings  # the environment is not read again
    assert rebuilt.api_key() is None  # the key is not stored: it is read when the client is built
    monkeypatch.setenv("MY_JUDGE_KEY", SECRET)
    assert rebuilt.api_key() == SECRET


def test_a_spec_round_trips_with_its_typed_judge_and_needs_the_decoder() -> None:
    settings = JudgeSettings.from_metadata({"judge_model": "m", "judge_cache": "none"}, environ={})
    spec = ProbeSpec("uta_gsm8k", "gsm8k", "none", MESSAGES, judge=settings)
    data = json.loads(json.dumps(spec.to_dict()))
    assert data["judge"]["judge_model"] == "m" and list(data) == [f.name for f in fields(ProbeSpec) if f.name in data]
    assert "judge_timeout" not in data["judge"] and "role_switch" not in data  # defaults are left out
    assert ProbeSpec.from_dict(data, JudgeSettings.from_dict) == spec
    off = ProbeSpec("uta_gsm8k", "gsm8k", "none", MESSAGES)
    assert ProbeSpec.from_dict(off.to_dict()) == off and off.to_dict()["judge"] is None
    with pytest.raises(ValueError, match="uta_gsm8k: the spec carries judge settings"):
        ProbeSpec.from_dict(data)


def test_a_spec_logged_with_raw_judge_metadata_still_reads() -> None:
    old = {"task": "uta_gsm8k", "benchmark": "gsm8k", "perturbation": "none", "messages": MESSAGES,
           "judge": {"judge_model": "m", "judge_base_url": "http://127.0.0.1:9/v1", "judge_max_retries": "2"}}
    spec = ProbeSpec.from_dict(old, JudgeSettings.from_dict)
    assert isinstance(spec.judge, JudgeSettings)
    assert (spec.judge.model, spec.judge.base_url, spec.judge.max_retries) == ("m", "http://127.0.0.1:9/v1", 2)
    assert not spec.judge.api_key_env_named and not spec.judge.base_url_paired
    with pytest.raises(JudgeConfigError, match="judge_max_retries"):
        JudgeSettings.from_dict({"judge_max_retries": 99})
