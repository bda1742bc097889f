"""The comparability table: one reader per setting, the manual's copy equal to the code."""

from __future__ import annotations

import re
from pathlib import Path

from uta_tasks.runs.comparability import GATE_KEYS, SETTINGS, differences, table_markdown

DOCS = Path(__file__).resolve().parents[2] / "docs" / "gate.md"


def test_the_manual_lists_the_table_as_the_code_has_it():
    text = DOCS.read_text(encoding="utf-8")
    found = re.search(r"<!-- comparability:begin -->\n(.*?)<!-- comparability:end -->", text, re.S)
    assert found is not None and found.group(1) == table_markdown()


def test_every_entry_guards_something_and_the_gate_default_covers_the_gate_entries():
    from uta_tasks.apps.gate.rules import GateSettings

    assert all(s.guards for s in SETTINGS)
    assert GateSettings().same == GATE_KEYS
    assert {"judge_model", "prompt_version", "pass2_context", "truncate_scope", "temperature", "user_samples",
            "max_gen_toks", "thinking", "question_pool", "data"} <= set(GATE_KEYS)


def test_a_summary_written_before_a_setting_existed_reads_as_its_before_value():
    old = {"pass2_context": "trace"}  # no user_samples key: the summary predates it
    assert differences(old, {"pass2_context": "trace", "user_samples": 1}, ["pass2_context", "user_samples"]) == []
    assert differences(old, {"pass2_context": "trace", "user_samples": 3}, ["user_samples"]) == ["user_samples 1 vs 3"]
