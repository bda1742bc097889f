"""``uta-gate --paper`` and the reference check on constructed runs of the paper's models whose
verdicts equal published cells: inside -> exit 0; shifted -> outside, exit 1; another judge, the
old pass-2 procedure or fewer documents -> not comparable, exit 2."""

from __future__ import annotations

import json
from dataclasses import replace

from paper_runs import rate_docs, trunc_docs, write_paper_run

from uta_tasks.apps.gate.cli import main as gate_main
from uta_tasks.apps.gate.paper import run_paper_gate
from uta_tasks.paper.reference import INSIDE, NOT_COMPARABLE, OUTSIDE

# Qwen3.5-9B at T=0 (Tables 3 and 5): GPQA Diamond 13.1% = 26/198, IFBench 2.0% = 6/300.
QWEN_9B = {"uta_gpqa_diamond": (26, 198), "uta_ifbench": (6, 300)}
# and its GPQA Diamond accuracy, 78.6% (Section 3.1): 156/198 = 78.8%, the nearest k/198
CORRECT_9B = 156


def _qwen(out, shift: int = 0, **kw):
    tasks = {t: rate_docs(k + (shift if t == "uta_gpqa_diamond" else 0), n) for t, (k, n) in QWEN_9B.items()}
    tasks["uta_gpqa_diamond"] = [replace(d, correct=i < CORRECT_9B) for i, d in enumerate(tasks["uta_gpqa_diamond"])]
    return write_paper_run(out, "Qwen/Qwen3.5-9B", tasks, **kw)


def _by_source(result):
    return {(c.cell.source, c.task, c.cell.metric): c for c in result.checks if c.cell.source != "Table 6"}


def _per_model(result):
    return [c for c in result.checks if c.cell.source != "Table 6"]


def test_a_run_that_equals_the_published_cells_is_inside_and_passes(tmp_path, capsys):
    _qwen(tmp_path / "run")
    result = run_paper_gate([tmp_path / "run"])
    checks = _by_source(result)
    assert set(checks) == {(s, t, "genuine_followup") for s in ("Table 3", "Table 4", "Table 5") for t in QWEN_9B} | {
        ("Section 3.1", "uta_gpqa_diamond", "accuracy")}
    assert {c.verdict for c in _per_model(result)} == {INSIDE}
    family = [c for c in result.checks if c.cell.source == "Table 6"]
    assert {c.run_model for c in family} == {"Qwen3.5"} and len(family) == 7  # six printed labels, plausible_followup
    assert {c.reason for c in family} == {"N: the runs pool 498 documents, the paper 5612"}
    gpqa = checks[("Table 5", "uta_gpqa_diamond", "genuine_followup")]
    assert gpqa.cell.value == 13.1 and round(gpqa.value, 4) == round(26 / 198, 4) and gpqa.method == "wilson"
    assert gpqa.low < 0.131 < gpqa.high
    assert gate_main([str(tmp_path / "run"), "--paper", "--json", str(tmp_path / "gate.json")]) == 0
    assert "7 inside, 0 outside, 7 not comparable" in capsys.readouterr().out
    assert json.loads((tmp_path / "gate.json").read_text())["exit_code"] == 0


def test_shifted_verdicts_are_outside_and_fail_unless_the_tolerance_covers_them(tmp_path, capsys):
    _qwen(tmp_path / "run", shift=14)  # 40/198 = 20.2%, Wilson [15.2, 26.3]
    checks = _by_source(run_paper_gate([tmp_path / "run"]))
    assert checks[("Table 5", "uta_gpqa_diamond", "genuine_followup")].verdict == OUTSIDE
    assert "below" in checks[("Table 5", "uta_gpqa_diamond", "genuine_followup")].reason
    assert checks[("Table 5", "uta_ifbench", "genuine_followup")].verdict == INSIDE
    assert gate_main([str(tmp_path / "run"), "--paper"]) == 1
    assert "4 inside, 3 outside" in capsys.readouterr().out
    assert gate_main([str(tmp_path / "run"), "--paper", "--tolerance", "2.5"]) == 0


def _followup(checks):
    """The checks of follow-up cells (accuracy is comparable whatever the judge and pass 2)."""
    return [c for c in checks if c.cell.metric != "accuracy"]


def test_another_judge_the_old_pass2_procedure_or_fewer_docs_are_not_comparable(tmp_path):
    _qwen(tmp_path / "nano", judge="gpt-5.4-nano")
    reasons = {c.reason for c in _followup(_per_model(run_paper_gate([tmp_path / "nano"])))}
    assert reasons == {"judge model gpt-5.4-nano, the paper's gpt-5.4-mini"}
    write_paper_run(tmp_path / "nano_ifbench", "Qwen/Qwen3.5-9B", {"uta_ifbench": rate_docs(6, 300)},
                    judge="gpt-5.4-nano")  # no accuracy cell of 9B on IFBench: nothing comparable
    assert gate_main([str(tmp_path / "nano_ifbench"), "--paper"]) == 2
    _qwen(tmp_path / "old", pass2_context=None)
    result = run_paper_gate([tmp_path / "old"])
    assert {c.verdict for c in _followup(result.checks)} == {NOT_COMPARABLE}
    assert {c.reason for c in _followup(_per_model(result))} == {"pass2_context template, the paper's trace"}
    write_paper_run(tmp_path / "few", "Qwen/Qwen3.5-9B", {"uta_gpqa_diamond": rate_docs(2, 15)})
    few = _per_model(run_paper_gate([tmp_path / "few"]))
    assert {c.reason for c in few} == {"N: the run has 15 documents, the paper 198"}


def test_truncation_cells_and_their_difference_with_a_paired_bootstrap(tmp_path):
    # gpt-oss-120b, GPQA Diamond (Table 1): Full 20.7% = 41/198, Trunc. 65.7% = 130/198.
    write_paper_run(tmp_path / "run", "/models/gpt-oss-120b", {"uta_gpqa_diamond_trunc": trunc_docs(130, 41, 198)})
    checks = _by_source(run_paper_gate([tmp_path / "run"]))
    assert set(checks) == {("Table 1", "uta_gpqa_diamond_trunc", m)
                           for m in ("genuine_followup", "genuine_followup_base", "genuine_followup_diff")}
    diff = checks[("Table 1", "uta_gpqa_diamond_trunc", "genuine_followup_diff")]
    assert diff.cell.value == 45.0 and diff.cell.origin == "derived" and diff.method == "paired_bootstrap"
    assert {c.verdict for c in checks.values()} == {INSIDE}
    full = checks[("Table 1", "uta_gpqa_diamond_trunc", "genuine_followup_base")]
    assert any("Table 5" in n for n in full.cell.notes)  # the paper's Table 5 says 16.7


def test_a_model_outside_the_paper_matches_nothing(tmp_path, capsys):
    write_paper_run(tmp_path / "run", "HuggingFaceTB/SmolLM2-135M-Instruct", {"uta_ifbench": rate_docs(6, 300)})
    assert run_paper_gate([tmp_path / "run"]).checks == []
    assert gate_main([str(tmp_path / "run"), "--paper"]) == 2
    assert "nothing comparable" in capsys.readouterr().out


def test_accuracy_is_comparable_whatever_the_judge(tmp_path):
    # GLM-4.7 GSM8K accuracy 95.3% = 1257/1319 (Table 5), judged by another judge with the old pass 2.
    from run_builder import Doc, Turn

    docs = [Doc([Turn(False)], correct=i < 1257) for i in range(1319)]
    write_paper_run(tmp_path / "run", "zai-org/GLM-4.7", {"uta_gsm8k": docs}, judge="gpt-5.4-nano", pass2_context=None)
    checks = {c.cell.metric: c for c in _per_model(run_paper_gate([tmp_path / "run"]))}
    assert checks["accuracy"].verdict == INSIDE
    assert checks["genuine_followup"].verdict == NOT_COMPARABLE
    assert gate_main([str(tmp_path / "run"), "--paper"]) == 0


def test_a_truncation_cell_refuses_a_run_that_cut_the_final_answer_only(tmp_path, capsys):
    """A stand-in for gpt-oss-120b on the paper's 198 GPQA Diamond docs whose verdicts equal Table 1,
    but made with truncate_scope: final_answer: not comparable, the setting named, exit 2."""
    from run_builder import RunSpec, write_run

    write_run(tmp_path / "run", RunSpec({"uta_gpqa_diamond_trunc": trunc_docs(130, 41, 198)},
                                        model="/models/gpt-oss-120b", judge_model="gpt-5.4-mini",
                                        prompt_version="followupeval-v2", truncate_scope="final_answer"))
    checks = _by_source(run_paper_gate([tmp_path / "run"]))
    assert {c.verdict for c in checks.values()} == {NOT_COMPARABLE}
    assert {c.reason for c in checks.values()} == {"truncate_scope final_answer, the paper's response"}
    assert gate_main([str(tmp_path / "run"), "--paper"]) == 2


def test_user_samples_other_than_one_is_not_the_papers_measurement(tmp_path):
    path = _qwen(tmp_path / "run")
    results = json.loads(path.read_text())
    for config in results["configs"].values():
        config["metadata"]["user_samples"] = 4
    path.write_text(json.dumps(results))
    for sample in path.parent.glob("samples_*.jsonl"):  # the records say 1 user turn; the samples win
        sample.unlink()
    checks = _per_model(run_paper_gate([tmp_path / "run"]))
    assert {c.reason for c in checks if c.cell.metric != "accuracy"} == {"user_samples 4, the paper's 1"}
    # the answer does not depend on how many user turns follow it: the accuracy cell is still checked
    assert {c.verdict for c in checks if c.cell.metric == "accuracy"} == {INSIDE}


def test_summary_and_paper_check_read_pass2_context_the_same_way(tmp_path):
    """A run without samples and without the key: both readers say what a run from before the
    setting did (template), so the summary and the paper check never disagree."""
    from uta_tasks.paper.cells import load_reference
    from uta_tasks.paper.reference import settings_differ
    from uta_tasks.runs import build_summary, load_run

    path = _qwen(tmp_path / "run", pass2_context=None)
    for sample in path.parent.glob("samples_*.jsonl"):
        sample.unlink()
    run = load_run(tmp_path / "run")
    summary = build_summary(run)
    assert {p["pass2_context"] for p in summary["provenance"]["tasks"].values()} == {"template"}
    assert settings_differ(run.tasks["uta_ifbench"], load_reference()) == ["pass2_context template, the paper's trace"]
