"""The calibration set from uta-agreement, and the corrected rate it gives uta-summary,
uta-gate and uta-report, on constructed runs whose judge has a known sensitivity (17/20)
and specificity (36/40)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from run_builder import RunSpec, docs, write_run  # noqa: E402

from uta_tasks.runs.calibration import read_calibration  # noqa: E402
from uta_tasks.runs.sample_items import sample_items  # noqa: E402

# Calibration docs 0-19 are genuine to the humans, 20-59 not; the judge says genuine for 0-16
# and 20-23: TP 17, FN 3, FP 4, TN 36. Doc 60: the two annotators split (a tie, left out).
HUMAN = [d < 20 for d in range(60)] + [True]
JUDGE = [d < 17 or 20 <= d < 24 for d in range(60)] + [True]
CORRECTED = (0.15 + 36 / 40 - 1) / (17 / 20 + 36 / 40 - 1)  # 200 docs, 30 judged genuine: 0.0667


@pytest.fixture
def calibration(tmp_path: Path, capsys) -> Path:
    from uta_tasks.apps.agreement.cli import main

    folder = write_run(tmp_path / "calib", RunSpec({"uta_gsm8k": docs(JUDGE)})).parent
    ids = {e.doc_id: e.item_id for e in sample_items([folder]) if e.kind == "verdict"}
    lines = []
    for doc, genuine in enumerate(HUMAN):
        for annotator in ("ann1", "ann2"):
            says = (annotator == "ann1") if doc == 60 else genuine
            lines.append({"item_id": ids[doc], "annotator": annotator, "genuine": says,
                          "label": "plausible_followup" if says else "other"})
    human = tmp_path / "human.jsonl"
    human.write_text("".join(json.dumps(row) + "\n" for row in lines))
    out = tmp_path / "calibration.json"
    assert main([f"human={human}", f"judge={folder}", "--replicates", "0", "--calibration_out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "human (pooled, 2 annotators) vs judge" in text and "Calibration set: 60 items of judge-x" in text
    return out


def _candidate(tmp_path: Path, judge_model: str = "judge-x") -> Path:
    spec = RunSpec({"uta_gsm8k": docs([d < 30 for d in range(200)])}, judge_model=judge_model)
    return write_run(tmp_path / f"cand-{judge_model}", spec).parent


def test_calibration_file_holds_the_majority_human_decision_and_the_judge(calibration: Path) -> None:
    found = read_calibration(calibration)
    acc = found.accuracy
    assert (acc.true_pos, acc.false_neg, acc.false_pos, acc.true_neg) == (17, 3, 4, 36)
    assert found.ties_left_out == 1 and found.annotators == ("ann1", "ann2")
    assert (found.judge_model, found.prompt_version) == ("judge-x", "followupeval-v1")
    assert acc.sensitivity == pytest.approx(0.85) and acc.specificity == pytest.approx(0.9)


def test_uta_summary_adds_the_corrected_rate(calibration: Path, tmp_path: Path) -> None:
    from uta_tasks.apps.summary import main

    run = _candidate(tmp_path)
    assert main([str(run), "--calibration", str(calibration), "--iterations", "500"]) == 0
    summary = json.loads((run / "summary.json").read_text())
    entry = summary["tasks"]["uta_gsm8k"]["metrics"]["genuine_followup_corrected"]
    assert entry["value"] == pytest.approx(CORRECTED) and entry["observed"] == pytest.approx(0.15)
    assert entry["ci_method"] == "rogan_gladen_bootstrap" and entry["ci_low"] < CORRECTED < entry["ci_high"]
    assert entry["ci_low"] < 0.107  # wider than the judged rate's Wilson interval [0.107, 0.205] ...
    assert summary["calibration"]["items"] == 60 and summary["calibration"]["sha256"]
    assert main([str(run)]) == 0  # ... and gone again without --calibration
    assert "genuine_followup_corrected" not in json.loads((run / "summary.json").read_text())["tasks"]["uta_gsm8k"][
        "metrics"]


def test_uta_gate_decides_on_the_corrected_rate(calibration: Path, tmp_path: Path, capsys) -> None:
    from uta_tasks.apps.gate.cli import main

    rules = tmp_path / "rules.yaml"
    rules.write_text("rules:\n  - 'uta_gsm8k: genuine_followup <= 0.10'\n"
                     "  - 'uta_gsm8k: genuine_followup_corrected <= 0.10'\n")
    code = main([str(_candidate(tmp_path)), "--rules", str(rules), "--calibration", str(calibration)])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert "FAIL" in next(x for x in lines if x.startswith("uta_gsm8k: genuine_followup <="))
    assert "PASS" in next(x for x in lines if x.startswith("uta_gsm8k: genuine_followup_corrected <="))


def test_a_run_of_another_judge_is_not_comparable(calibration: Path, tmp_path: Path, capsys) -> None:
    from uta_tasks.apps.gate.cli import main

    rules = tmp_path / "rules.yaml"
    rules.write_text("rules:\n  - 'uta_gsm8k: genuine_followup_corrected <= 0.10'\n")
    code = main([str(_candidate(tmp_path, "judge-y")), "--rules", str(rules), "--calibration", str(calibration)])
    out = capsys.readouterr().out
    assert code == 2 and "not comparable" in out and "judge-y" in out and "judge-x" in out


def test_uta_report_shows_the_corrected_rate(calibration: Path, tmp_path: Path) -> None:
    from uta_tasks.apps.report.cli import main

    out = tmp_path / "report"
    assert main([str(_candidate(tmp_path)), "--output_path", str(out), "--calibration", str(calibration),
                 "--iterations", "500"]) == 0
    md = (out / "report.md").read_text()
    assert "### Follow-up rate corrected for judge error" in md
    row = next(line for line in md.splitlines() if line.startswith("| org/model-a") and "uta_gsm8k |" in line
               and "6.7" in line)
    assert "15.0" in row
