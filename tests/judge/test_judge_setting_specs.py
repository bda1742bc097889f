"""One spec per judge setting: the dataclass, its validation, the manual, the commands'
``--help`` and the quickstart all take a setting's default, range and doc from its spec."""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
from pathlib import Path

import pytest

from uta_tasks.apps import quickstart
from uta_tasks.apps.gate.cli import parser as gate_parser
from uta_tasks.apps.judge_options import add_judge_setting, add_metadata_option, metadata_from_json
from uta_tasks.apps.report.cli import parser as report_parser
from uta_tasks.apps.summary import parser as summary_parser
from uta_tasks.judge import JudgeConfigError, JudgeSettings
from uta_tasks.judge.setting_specs import SPEC_BY_KEY, SPECS, SettingSpec

RANGED = [spec for spec in SPECS if spec.low is not None]
CHOICES = [spec for spec in SPECS if spec.choices]


def test_every_field_of_the_settings_has_one_spec_and_takes_its_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    user_fields = {f.name for f in dataclasses.fields(JudgeSettings)} - {"api_key_env_named", "base_url_paired"}
    assert sorted(spec.field for spec in SPECS) == sorted(user_fields)
    built, read = JudgeSettings(), JudgeSettings.from_metadata({}, environ={})
    for spec in SPECS:
        assert getattr(built, spec.field) == getattr(read, spec.field) == spec.default_value(), spec.key
        assert spec.env == "UTA_" + spec.key.upper()
    assert built.cache == str(tmp_path / "uta-tasks" / "judge.sqlite")


@pytest.mark.parametrize("spec", RANGED, ids=lambda spec: spec.key)
def test_each_range_is_enforced_at_its_bounds_and_named_in_the_manual(spec: SettingSpec) -> None:
    assert spec.low is not None and spec.high is not None
    as_given = int if spec.kind == "int" else float
    for inside in (spec.low, spec.high):
        assert getattr(JudgeSettings.from_metadata({spec.key: str(as_given(inside))}, environ={}), spec.field) == inside
    outside = spec.high + 1
    with pytest.raises(JudgeConfigError, match=rf"{spec.key}=.* is out of range: use a value in \[") as info:
        JudgeSettings.from_metadata({spec.key: str(as_given(outside))}, environ={})
    assert str(spec.high) in str(info.value)
    with pytest.raises(JudgeConfigError, match=spec.key):
        JudgeSettings(**{spec.field: as_given(outside)})  # built directly: the same check
    assert f"-{spec.high}" in spec.allowed_markdown()


@pytest.mark.parametrize("spec", CHOICES, ids=lambda spec: spec.key)
def test_each_choice_list_is_enforced_and_named_in_the_message(spec: SettingSpec) -> None:
    assert spec.choices is not None
    for choice in spec.choices:
        JudgeSettings(**{spec.field: choice})
    with pytest.raises(JudgeConfigError, match=spec.key) as info:
        JudgeSettings.from_metadata({spec.key: "no-such-choice"}, environ={})
    assert all(choice in str(info.value) for choice in spec.choices)


def test_a_bad_value_from_the_environment_names_the_variable() -> None:
    with pytest.raises(JudgeConfigError, match=r"judge_concurrency \(from \$UTA_JUDGE_CONCURRENCY\)=0 is out of range"):
        JudgeSettings.from_metadata({}, environ={"UTA_JUDGE_CONCURRENCY": "0"})
    with pytest.raises(JudgeConfigError, match=r"judge \(from \$UTA_JUDGE\)='claude': use one of"):
        JudgeSettings.from_metadata({}, environ={"UTA_JUDGE": "claude"})


def test_an_empty_model_names_the_key_and_the_default() -> None:
    with pytest.raises(JudgeConfigError, match="judge_model is empty: set it, e.g. judge_model=gpt-5.4-mini"):
        JudgeSettings.from_metadata({"judge_model": " "}, environ={})


def test_the_quickstart_takes_its_judge_model_and_help_from_the_spec(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # no line breaks inside hyphenated words
    default = SPEC_BY_KEY["judge_model"].default
    judge = quickstart.choose_judge(quickstart.parse_args([]), {"OPENAI_API_KEY": "sk-test"})
    assert judge.model == default
    assert default in quickstart.Judge("local", "m", "http://127.0.0.1:1/v1").describe()
    with pytest.raises(SystemExit):
        quickstart.parse_args(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"{SPEC_BY_KEY['judge_model'].help()} (default: {default} for OpenAI" in help_text
    assert "any OpenAI-compatible endpoint (vllm serve, llama-server, a proxy)" in help_text


def test_a_setting_option_shows_the_spec_doc_as_plain_text_and_its_default() -> None:
    parser = argparse.ArgumentParser()
    add_judge_setting(parser, "judge_prompt")
    add_judge_setting(parser, "judge_concurrency", type=int)
    help_text = " ".join(parser.format_help().split())
    assert "[sources]" not in help_text and "`" not in help_text
    assert "the judge_prompt setting" in help_text and "(default: followupeval-v4;" in help_text
    assert f"(default: {SPEC_BY_KEY['judge_concurrency'].default};" in help_text
    assert parser.parse_args(["--judge_concurrency", "3"]).judge_concurrency == 3


def test_metadata_option_lists_the_keys_and_refuses_what_is_not_an_object() -> None:
    parser = argparse.ArgumentParser(prog="uta-x")
    add_metadata_option(parser)
    assert metadata_from_json(parser.parse_args([]).metadata, "uta-x") == {}
    given = parser.parse_args(["--metadata", '{"judge_model": "m"}']).metadata
    assert metadata_from_json(given, "uta-x") == {"judge_model": "m"}
    for bad in ("{judge_model: m}", "[1, 2]"):
        with pytest.raises(SystemExit, match="uta-x: --metadata must be a JSON object of judge settings"):
            metadata_from_json(bad, "uta-x")
    help_text = " ".join(parser.format_help().split())
    assert all(spec.key in help_text for spec in SPECS)


def test_calibration_and_retest_read_the_same_on_summary_report_and_gate() -> None:
    parsers = {"summary": summary_parser(), "report": report_parser(), "gate": gate_parser()}
    helps = {name: {a.dest: a.help for a in p._actions if a.dest in ("calibration", "retest")}
             for name, p in parsers.items()}
    assert helps["summary"]["calibration"] == helps["report"]["calibration"] == helps["gate"]["calibration"]
    assert helps["report"]["retest"] == helps["gate"]["retest"]
    assert gate_parser().parse_args(["run", "--retest", "r.json", "--calibration", "c.json"]).retest == "r.json"


def _render_script():
    path = Path(__file__).resolve().parents[2] / "scripts" / "render_settings_tables.py"
    spec = importlib.util.spec_from_file_location("render_settings_tables", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_changed_default_reaches_the_manual_through_one_command(monkeypatch: pytest.MonkeyPatch) -> None:
    from uta_tasks.judge import setting_specs

    script = _render_script()
    page = script.PAGE.read_text(encoding="utf-8")
    row = "| `judge_concurrency` | `UTA_JUDGE_CONCURRENCY` | `{}` |"
    now = SPEC_BY_KEY["judge_concurrency"].default
    stale = page.replace(row.format(now), row.format(now + 1))
    assert stale != page and script.render(stale) == page == script.render(page)
    changed = tuple(dataclasses.replace(s, default=now * 2) if s.key == "judge_concurrency" else s
                    for s in setting_specs.SPECS)
    monkeypatch.setattr(setting_specs, "SPECS", changed)
    assert row.format(now * 2) in script.render(page)
    with pytest.raises(ValueError, match="judge-settings:start"):
        script.render(page.replace("<!-- judge-settings:start -->", ""))
