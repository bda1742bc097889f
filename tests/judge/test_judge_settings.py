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
    assert settings.concurrency == 32
    assert settings.temperature == 0.0
    assert settings.reasoning_effort is None
    assert settings.cache == str(tmp_path / "uta-tasks" / "judge.sqlite")
    assert settings.prompt == "followupeval-v4"
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


SETTINGS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "settings.md"
START, END = "<!-- judge-settings:start -->", "<!-- judge-settings:end -->"


def test_settings_page_holds_exactly_the_generated_settings_table() -> None:
    from uta_tasks.judge.settings import settings_table_markdown

    text = SETTINGS_PAGE.read_text(encoding="utf-8")
    assert text.count(START) == 1 and text.count(END) == 1
    between = text[text.index(START) + len(START): text.index(END)]
    assert between.strip("\n") + "\n" == settings_table_markdown()
    for key in SETTING_KEYS:
        assert f"| `{key}` |" in settings_table_markdown()
        assert "`UTA_" + key.upper() + "`" in settings_table_markdown()


def test_package_docstring_points_to_the_table_instead_of_repeating_it() -> None:
    from uta_tasks import judge

    assert "settings_table_markdown" in judge.__doc__ and "docs/settings.md" in judge.__doc__
    assert "UTA_JUDGE_CONCURRENCY" not in judge.__doc__  # no second copy to drift


@pytest.mark.parametrize("value", ["none", "off", "false", "no", "0", "NONE", " Off ", False, 0, None])
def test_every_off_word_turns_judging_off(value: object) -> None:
    from uta_tasks.judge.settings import judging_enabled

    assert judging_enabled({"judge": value}) is False
    assert JudgeSettings.from_metadata({"judge": value}).enabled is False


def test_judging_enabled_reads_the_environment_and_defaults_on() -> None:
    from uta_tasks.judge.settings import judging_enabled

    assert judging_enabled({}, environ={}) is True
    assert judging_enabled({"judge": "openai", "num_fewshot": 0}, environ={}) is True
    assert judging_enabled({}, environ={"UTA_JUDGE": "none"}) is False
    assert judging_enabled({"judge": "openai"}, environ={"UTA_JUDGE": "none"}) is True  # metadata wins
    with pytest.raises(JudgeConfigError, match="judge_concurrency"):
        judging_enabled({"judge_concurrency": "many"}, environ={})


def test_typos_of_judge_keys_are_caught_with_a_suggestion() -> None:
    from uta_tasks.judge.settings import suggest_key

    assert suggest_key("jduge_model") == "judge_model"
    assert suggest_key("judge_modle") == "judge_model"
    assert suggest_key("judge_concurency") == "judge_concurrency"
    assert suggest_key("JUDGE_MODEL") == "judge_model"
    assert suggest_key("judge_model") is None
    for other in ("role_switch", "role_swich", "user_max_gen_toks", "question_seed", "data_hub_timeout",
                  "pretrained", "num_fewshot", "gsm8k_data_files", "ifeval_unverifiable", "repeats"):
        assert suggest_key(other) is None, other
    with pytest.raises(JudgeConfigError, match="jduge_model.*did you mean 'judge_model'"):
        JudgeSettings.from_metadata({"jduge_model": "gpt-5.4"})


def test_max_unjudged_share_setting() -> None:
    assert JudgeSettings.from_metadata({}).max_unjudged_share == 0.5
    assert JudgeSettings.from_metadata({"judge_max_unjudged_share": "0.1"}).max_unjudged_share == 0.1
    assert JudgeSettings.from_metadata({}, environ={"UTA_JUDGE_MAX_UNJUDGED_SHARE": "1"}).max_unjudged_share == 1.0
    for bad in ("1.5", "-0.1", "half"):
        with pytest.raises(JudgeConfigError, match="judge_max_unjudged_share"):
            JudgeSettings.from_metadata({"judge_max_unjudged_share": bad})
