"""The documented flow end to end on real SmolLM2 generations and the real llama-server judge:
generate with ``--predict_only --log_samples``, judge later with ``uta-rejudge``, then
``uta-summary``, ``uta-gate`` (a bound, and a regression against a live judged run of the same
docs), ``uta-report`` on both folders and ``uta-agreement`` between them. Every step's numbers
are checked against the verdicts the judge wrote into the samples."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from real_run import LIMIT, TASKS, judge_metadata, write_real_run  # noqa: E402

from uta_tasks.runs.sample_items import sample_items  # noqa: E402

pytestmark = pytest.mark.slow
TRUNC = "uta_ifbench_trunc"


def _turns(folder: Path, task: str) -> dict[tuple[int, int], bool]:
    """(doc_id, repeat) -> genuine, for every judged u (the denominator of genuine_followup)."""
    out = {}
    for entry in sample_items([folder], kinds=["verdict"]):
        if entry.task == task and entry.verdict is not None and entry.verdict.judged:
            out[(entry.doc_id, entry.repeat)] = bool(entry.verdict.genuine)
    return out


def _answers(folder: Path) -> dict[str, tuple[str, bool]]:
    return {e.item_id: (str(e.verdict.label), bool(e.verdict.genuine)) for e in sample_items([folder])
            if e.verdict is not None and e.verdict.judged}


def test_generate_then_judge_later_summary_gate_report_agreement(hf_lm, smollm2_dir, llama_url, uta_real_run,
                                                                 tmp_path: Path) -> None:
    from uta_tasks.apps.agreement.cli import main as agreement_main
    from uta_tasks.apps.gate.cli import main as gate_main
    from uta_tasks.apps.rejudge.cli import main as rejudge_main
    from uta_tasks.apps.report.cli import main as report_main
    from uta_tasks.apps.summary import main as summary_main

    live = uta_real_run
    # 1. generate only (what `uta-eval ... --predict_only --log_samples --output_path gen/` writes)
    generated = write_real_run(hf_lm, smollm2_dir, llama_url, tmp_path / "gen", predict_only=True)
    assert all(e.verdict is None for e in sample_items([generated]))

    # 2. judge later, with the live run's judge settings and a fresh verdict cache
    meta = judge_metadata(llama_url, tmp_path / "rejudge.sqlite")
    judged = tmp_path / "judged"
    assert rejudge_main([str(generated), "--metadata", json.dumps(meta), "--output_path", str(judged),
                         "--bootstrap_iters", "100"]) == 0
    (results_file,) = judged.rglob("results_*.json")
    assert results_file.parent.relative_to(judged) == next(generated.rglob("results_*.json")).parent.relative_to(
        generated)

    # 3. uta-summary: counts equal the verdicts
    assert summary_main([str(judged)]) == 0
    summary = json.loads((results_file.parent / "summary.json").read_text())
    assert summary["provenance"]["verdicts"]["source"] == "rejudge"
    assert summary["provenance"]["verdicts"]["judge"]["judge_model"] == meta["judge_model"]
    for task in TASKS:
        turns = _turns(judged, task)
        row = summary["tasks"][task]
        assert row["samples"] is True and row["n_docs"] == LIMIT and row["benchmark"] == "ifbench"
        genuine = row["metrics"]["genuine_followup"]
        assert (genuine["k"], genuine["n"]) == (sum(turns.values()), len(turns)), task
        assert genuine["value"] == (sum(turns.values()) / len(turns) if turns else None)

    # 4. uta-gate: a bound, and a regression against the live run of the same docs
    cand, base = _turns(judged, TRUNC), _turns(live, TRUNC)
    matched = sorted(set(cand) & set(base))
    rules = tmp_path / "gate.yaml"
    rules.write_text("version: 1\nsettings: {min_judged: 1}\nrules:\n"
                     f"  - {{task: {TRUNC}, metric: genuine_followup, op: '>=', value: 0.0}}\n"
                     f"  - {{task: {TRUNC}, metric: genuine_followup, max_drop: 1.0}}\n")
    gate_json = tmp_path / "gate.json"
    code = gate_main([str(judged), "--rules", str(rules), "--baseline", str(live), "--strict", "--json",
                      str(gate_json)])
    bound, regression = json.loads(gate_json.read_text())["rules"]
    if cand:
        assert bound["status"] == "pass" and bound["value"] == pytest.approx(sum(cand.values()) / len(cand))
    else:
        assert bound["status"] == "error"
    if matched:
        diff = sum(cand[u] - base[u] for u in matched) / len(matched)
        assert regression["status"] == "pass" and regression["value"] == pytest.approx(diff)
    else:
        assert regression["status"] == "error"
    assert code == (0 if cand and matched else 2)

    # 5. uta-report on both folders: the headline rate of each is its verdicts' rate
    for name, folder in (("live", live), ("judged", judged)):
        out = tmp_path / f"report-{name}"
        assert report_main([str(folder), "--output_path", str(out), "--iterations", "200"]) == 0
        html = (out / "report.html").read_text()
        figures = sorted((out / "figures").glob("*.svg"))
        assert len(figures) >= 2
        for figure in figures:  # every figure file is inlined in the page (paper panels nest <svg>)
            assert figure.read_text().split("\n", 1)[1].strip() in html, figure.name
        assert html.count("<svg") == sum(f.read_text().count("<svg") for f in figures)
        turns = _turns(folder, "uta_ifbench")
        if turns:
            assert f"| {100 * sum(turns.values()) / len(turns):.1f} [" in (out / "report.md").read_text()

    # 6. uta-agreement between the live and the re-judged verdicts
    live_answers, judged_answers = _answers(live), _answers(judged)
    common = sorted(set(live_answers) & set(judged_answers))
    agreement_json = tmp_path / "agreement.json"
    try:
        code = agreement_main([f"live={live}", f"rejudged={judged}", "--replicates", "0", "--json",
                               str(agreement_json)])
    except SystemExit as exc:  # no shared item: the command says so and fails
        code = exc.code
    if not common:
        assert code != 0
        return
    assert code == 0
    (row,) = json.loads(agreement_json.read_text())["comparisons"]
    same_genuine = sum(live_answers[i][1] == judged_answers[i][1] for i in common)
    same_label = sum(live_answers[i][0] == judged_answers[i][0] for i in common)
    assert row["n"] == len(common)
    assert row["genuine"]["agreement"] == pytest.approx(100.0 * same_genuine / len(common))
    assert row["label"]["agreement"] == pytest.approx(100.0 * same_label / len(common))
