"""The probe's task settings: one spec each, parsed once per task, documented from the specs."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from uta_tasks.probe import task_settings
from uta_tasks.probe.task_settings import TaskSettingError, TaskSettings

SETTINGS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "settings.md"


def test_every_field_has_one_spec_and_takes_its_default():
    assert tuple(f.name for f in fields(TaskSettings)) == task_settings.KEYS
    defaults = TaskSettings.from_metadata("uta_x", {})
    assert defaults == TaskSettings()
    assert (defaults.pass2_context, defaults.truncate_scope) == ("trace", "response")  # the paper's procedure


def test_values_are_coerced_once_and_pass_at_k_is_checked_against_user_samples():
    got = TaskSettings.from_metadata("uta_x", {"user_samples": "4", "pass_at_k": "1,4", "question_seed": 7.0,
                                               "pass2_context": "template", "user_max_gen_toks": "64"})
    assert (got.user_samples, got.pass_at_k, got.question_seed, got.user_max_gen_toks) == (4, (1, 4), 7, 64)
    assert got.pass2_context == "template"


@pytest.mark.parametrize(("meta", "message"), [
    ({"pass2_context": "raw"}, "uta_x: --metadata pass2_context='raw' is not one of trace, template"),
    ({"role_switch": "chatml"}, "role_switch='chatml' is not one of auto, sentinel, harmony, glm4"),
    ({"user_max_gen_toks": 0}, "user_max_gen_toks=0 must be at least 1"),
    ({"question_seed": "seven"}, "question_seed='seven' must be a whole number"),
    ({"user_samples": True}, "user_samples=True must be a whole number"),
    ({"user_samples": 2, "pass_at_k": "4"}, "every k must be between 1 and user_samples=2"),
    ({"question_pool": "question_pool_v9"}, "question_pool_v2, question_pool_v1"),
    ({"answers_from_settings": {"temp": 0}}, "keys among temperature, max_gen_toks, until, model"),
    ({"answers_from_settings": "temperature=0"}, "answers_from_settings='temperature=0' must be a JSON object"),
])
def test_a_bad_value_names_the_task_the_key_and_what_is_allowed(meta, message):
    with pytest.raises(TaskSettingError) as raised:
        TaskSettings.from_metadata("uta_x", meta)
    assert message in str(raised.value)


def test_the_manual_holds_exactly_the_generated_table():
    text = SETTINGS_PAGE.read_text(encoding="utf-8")
    start, end = "<!-- task-settings:start -->\n", "<!-- task-settings:end -->"
    assert text.count(start) == 1 and text.count(end) == 1
    assert text[text.index(start) + len(start): text.index(end)] == task_settings.settings_table_markdown()
