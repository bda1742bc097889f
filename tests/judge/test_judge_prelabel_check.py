"""``uta-prelabel-check``: rule precision against a judge, from saved samples or a fresh run."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from fault_server import MODEL, FaultServer

from uta_tasks.apps.prelabel_check import check, format_report, main
from uta_tasks.judge import JudgeItem, JudgeSettings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "annotate"))

from saved_runs import write_run  # noqa: E402


def test_precision_counts_agreement_per_rule_on_distinct_items() -> None:
    context = (("user", "What is 2 + 2?"), ("assistant", "It is 4."))
    items = [
        JudgeItem(context, "What is 2 + 2?"),  # restates q: judge agrees
        JudgeItem(context, "What is 2 + 2?"),  # the same item again: counted once
        JudgeItem((("user", "Name a colour."), ("assistant", "Blue.")), "Name a colour."),  # judge disagrees
        JudgeItem(context, ""),  # empty, no judge label
        JudgeItem(context, "Why 4?"),  # no rule
    ]
    labels = [("previous_turn_restate", False), ("previous_turn_restate", False), ("new_task_prompt", False), None,
              ("previous_turn_restate", False)]
    report = check(items, labels, judge="test-judge")
    rules = {r.rule: r for r in report.rules}
    assert (report.items, report.compared, report.fired) == (4, 3, 3)
    restate = rules["restates_prompt"]
    assert (restate.fired, restate.compared, restate.agree, restate.precision) == (2, 2, 1, 0.5)
    assert restate.judge_labels == {"previous_turn_restate": 1, "new_task_prompt": 1}
    assert restate.judge_total == 2  # the judge's restatements: one found by the rule, "Why 4?" not
    assert (rules["empty"].fired, rules["empty"].compared, rules["empty"].precision) == (1, 0, None)
    sweep = {(row[0], row[1]): row[2:] for row in report.sweep}
    assert sweep[(0.9, "restates_prompt")] == [2, 2, 1]
    text = format_report(report)
    assert "| restates_prompt | previous_turn_restate | 2 | 2 | 1 | 0.500 |" in text and "test-judge" in text


def test_command_reads_stored_verdicts_then_judges_afresh(
    fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings], tmp_path: Path, capsys
) -> None:
    meta = {"judge_base_url": fault_server.base_url, "judge_model": MODEL,
            "judge_cache": str(tmp_path / "judge.sqlite"), "judge_max_retries": 0}
    out = tmp_path / "out"
    write_run(out, "org/model", {"uta_gsm8k": 6, "uta_gsm8k_trunc": 3}, judge=meta)
    status = main([str(out), "--json", str(tmp_path / "report.json")])
    text = capsys.readouterr().out
    report = json.loads((tmp_path / "report.json").read_text())
    restate = next(r for r in report["rules"] if r["rule"] == "restates_prompt")
    # the double labels every turn without "?" previous_turn_restate: the copies of q agree
    assert restate["fired"] > 0 and restate["precision"] == 1.0 and status == 0
    assert f"against {MODEL} (followupeval-v4)" in text

    predict_only = tmp_path / "gen"
    write_run(predict_only, "org/model", {"uta_gsm8k": 6}, judge=None)
    calls_before = len(fault_server.chat_requests())
    status = main([str(predict_only), "--judge", "--metadata", json.dumps(meta)])
    text = capsys.readouterr().out
    assert status == 0 and f"against {MODEL} (followupeval-v4), fresh run" in text
    assert "| restates_prompt | previous_turn_restate | 3 | 3 | 3 | 1.000 |" in text
    items = [r for r in fault_server.chat_requests()[calls_before:] if r.user_turn is not None]
    assert len(items) <= 6  # the rules are off for the fresh run (the preflight test call is not an item)


def test_command_fails_when_a_rule_is_below_the_target(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    folder = write_run(out, "org/model", {"uta_gsm8k": 3}, judge=None)
    samples = next(folder.glob("samples_*.jsonl"))
    lines = []
    for line in samples.read_text().splitlines():
        sample = json.loads(line)
        record = json.loads(sample["filtered_resps"][0][0])
        record["verdict"] = {"status": "judged", "label": "new_task_prompt", "genuine": False, "rationale": "r",
                             "judge_model": "m", "prompt_version": "v"}
        sample["filtered_resps"] = [[json.dumps(record)]]
        lines.append(json.dumps(sample))
    samples.write_text("\n".join(lines) + "\n")
    assert main([str(out), "--kinds", "verdict"]) == 1
    assert "| restates_prompt | previous_turn_restate | 2 | 2 | 0 | 0.000 |" in capsys.readouterr().out
