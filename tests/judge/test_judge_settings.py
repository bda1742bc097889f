"""Settings: metadata strings are coerced, bad values name their key, env fallbacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from uta_tasks.judge import SETTING_KEYS, JudgeConfigError, JudgeSettings
from uta_tasks.judge.settings import OPENAI_API_URL


def test_defaults_without_metadata_or_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    settings = JudgeSettings.from_metadata({})
    assert settings.provider == "openai"
    assert settings.model == "gpt-5.4-mini"
    assert settings.base_url == OPENAI_API_URL
    assert settings.api_key_env == "OPENAI_API_KEY"
    assert settings.concurrency == 8
    assert settings.temperature == 0.0
    assert settings.reasoning_effort is None
    assert settings.cache == str(tmp_path / "uta-tasks" / "judge.sqlite")
    assert settings.prompt == "followupeval-v1"
    assert settings.enabled and settings.is_openai_api


def test_string_values_from_metadata_are_coerced() -> None:
    settings = JudgeSettings.from_metadata(
        {
            "judge_concurrency": "3",
            "judge_timeout": "2.5",
            "judge_max_retries": "0",
            "judge_backoff_base": "0.1",
            "judge_backoff_max": 4,
            "judge_max_tokens": "512",
            "judge_temperature": "none",
            "judge_reasoning_effort": "LOW",
            "judge_cache": "off",
            "judge_base_url": "http://127.0.0.1:9/v1/",
            "judge": "OpenAI",
        }
    )
    assert settings.concurrency == 3 and settings.timeout == 2.5 and settings.max_retries == 0
    assert settings.backoff_base == 0.1 and settings.backoff_max == 4.0 and settings.max_tokens == 512
    assert settings.temperature is None and settings.reasoning_effort == "low"
    assert settings.cache is None
    assert settings.base_url == "http://127.0.0.1:9/v1"
    assert not settings.is_openai_api


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("judge_concurrency", "eight"),
        ("judge_concurrency", "0"),
        ("judge_concurrency", True),
        ("judge_timeout", "soon"),
        ("judge_max_retries", "100"),
        ("judge_temperature", "hot"),
        ("judge_temperature", "3"),
        ("judge_base_url", "localhost:8080"),
        ("judge", "anthropic"),
        ("judge_reasoning_effort", "extreme"),
        ("judge_api_key_env", "not a name"),
    ],
)
def test_bad_value_names_the_key(key: str, value: object) -> None:
    with pytest.raises(JudgeConfigError, match=key):
        JudgeSettings.from_metadata({key: value})


def test_unknown_judge_key_is_an_error_and_other_keys_are_ignored() -> None:
    with pytest.raises(JudgeConfigError, match="judge_modle"):
        JudgeSettings.from_metadata({"judge_modle": "x"})
    assert JudgeSettings.from_metadata({"num_fewshot": 3, "pretrained": "x"}).model == "gpt-5.4-mini"


def test_api_key_in_metadata_is_refused_without_echoing_it() -> None:
    with pytest.raises(JudgeConfigError) as info:
        JudgeSettings.from_metadata({"judge_api_key": "sk-should-not-appear-123456"})
    assert "sk-should-not-appear" not in str(info.value)
    assert "environment" in str(info.value)


def test_environment_fallbacks_and_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1234/v1")
    monkeypatch.setenv("UTA_JUDGE_CONCURRENCY", "5")
    monkeypatch.setenv("UTA_JUDGE_CACHE", "none")
    monkeypatch.setenv("UTA_JUDGE_MODEL", "env-model")
    settings = JudgeSettings.from_metadata({"judge_model": "meta-model"})
    assert settings.base_url == "http://127.0.0.1:1234/v1"
    assert settings.concurrency == 5
    assert settings.cache is None
    assert settings.model == "meta-model"  # metadata wins over the environment
    monkeypatch.setenv("UTA_JUDGE_BASE_URL", "http://127.0.0.1:4321/v1")
    assert JudgeSettings.from_metadata({}).base_url == "http://127.0.0.1:4321/v1"
    monkeypatch.setenv("UTA_JUDGE_TIMEOUT", "abc")
    with pytest.raises(JudgeConfigError, match=r"judge_timeout \(from \$UTA_JUDGE_TIMEOUT\)"):
        JudgeSettings.from_metadata({})


def test_judge_none_and_key_from_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not JudgeSettings.from_metadata({"judge": "none"}).enabled
    assert not JudgeSettings.from_metadata({"judge": False}).enabled
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-from-my-variable-0000")
    settings = JudgeSettings.from_metadata({"judge_api_key_env": "MY_JUDGE_KEY"})
    assert settings.api_key() == "sk-from-my-variable-0000"
    assert "sk-from-my-variable" not in repr(settings)
    assert "sk-from-my-variable" not in str(settings.describe())


def test_every_setting_key_is_documented_in_the_package_docstring() -> None:
    import uta_tasks.judge as judge

    for key in SETTING_KEYS:
        assert key in judge.__doc__
        env_name = "UTA_" + key.upper()
        assert env_name in judge.__doc__
