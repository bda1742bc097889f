"""``uta-rejudge --retest K`` against a scripted judge that flips a known share of turns on
one repeat, over a real HTTP server on 127.0.0.1 and the real judge client; then the
retest file read by uta-gate and uta-report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fault_server import MODEL, FaultConfig, FaultServer, expected_verdict
from run_builder import Doc, RunSpec, Turn, write_run
from saved_runs import write_run as write_saved

from uta_tasks.apps.rejudge.retest import measure_task
from uta_tasks.runs.retest_file import read_retest
from uta_tasks.schema.probe import ProbeRecord

DOCS = 12
FLIPPED_DOCS = (1, 4, 7)  # their user turn flips on the second of three repeats: 3 of 12 = 25%


def _turns(folder: Path) -> list[str]:
    (path,) = folder.glob("samples_uta_gsm8k_*.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [ProbeRecord.from_json(row["resps"][0][0]).u for row in rows]


def test_retest_measures_the_scripted_flips_and_leaves_the_cache_alone(tmp_path: Path, capsys) -> None:
    from uta_tasks.apps.rejudge.cli import main

    folder = write_saved(tmp_path / "run", "org/model-a", {"uta_gsm8k": DOCS}, judge=None)
    turns = _turns(folder)
    assert len(set(turns)) == DOCS  # one request per turn per repeat
    config = FaultConfig(sequences={turns[d]: ["ok", "flip", "ok"] for d in FLIPPED_DOCS})
    cache = tmp_path / "judge-cache.sqlite"
    with FaultServer(config) as server:
        meta = {"judge_base_url": server.base_url, "judge_model": MODEL, "judge_cache": str(cache),
                "judge_max_retries": 0}
        code = main([str(folder), "--metadata", json.dumps(meta), "--output_path", str(tmp_path / "retest"),
                     "--retest", "3"])
        calls = [r for r in server.chat_requests() if r.user_turn is not None]
    assert code == 0
    assert len(calls) == 3 * DOCS and server.served["flip"] == len(FLIPPED_DOCS)
    assert not cache.exists(), "the retest must neither read nor write the normal cache"
    result = read_retest(tmp_path / "retest")["uta_gsm8k"]
    assert result["turns"] == DOCS and result["flipped"] == 3 and result["flip_share"] == pytest.approx(0.25)
    base = sum(expected_verdict(u)["genuine"] for u in turns)
    second = base + sum(-1 if expected_verdict(turns[d])["genuine"] else 1 for d in FLIPPED_DOCS)
    assert result["rates"] == [pytest.approx(base / DOCS), pytest.approx(second / DOCS), pytest.approx(base / DOCS)]
    assert result["spread"] == pytest.approx(abs(second - base) / DOCS)
    assert result["alpha"]["value"] is not None and result["alpha"]["value"] < 1.0
    assert "uta_gsm8k  12  25.0" in capsys.readouterr().out


def test_retest_needs_three_repeats(tmp_path: Path) -> None:
    from uta_tasks.apps.rejudge.cli import main

    folder = write_saved(tmp_path / "run", "org/model-a", {"uta_gsm8k": 2}, judge=None)
    meta = {"judge_base_url": "http://127.0.0.1:9/v1", "judge_model": MODEL}
    assert main([str(folder), "--metadata", json.dumps(meta), "--output_path", str(tmp_path / "o"),
                 "--retest", "2"]) == 2


def test_a_judge_that_never_changes_its_mind_has_no_flips_and_alpha_one() -> None:
    repeats = [{(d, 0, "verdict"): d % 3 == 0 for d in range(9)} for _ in range(3)]
    found = measure_task("t", repeats, replicates=200)
    assert found.flipped == 0 and found.spread == 0.0 and found.alpha.value == pytest.approx(1.0)


def _retest_file(tmp_path: Path, spread: float) -> Path:
    path = tmp_path / "retest.json"
    alpha = {"raters": [], "items": 100, "left_out": 0, "value": 0.8, "ci": [0.7, 0.9], "reason": None,
             "undefined_replicates": 0}
    tasks = {t: {"task": t, "repeats": 3, "turns": 100, "unjudged": 0, "flipped": 6, "flip_share": 0.06,
                 "rates": [0.10, 0.10 + spread, 0.12], "spread": spread, "alpha": alpha}
             for t in ("uta_gsm8k", "uta_gsm8k_trunc")}
    path.write_text(json.dumps({"schema": "uta-retest/1", "judge": {}, "tasks": tasks}))
    return path


def _run(tmp_path: Path) -> Path:
    """Base 10/100 genuine, truncated 13/100: a 3 pp difference."""
    base = [Doc([Turn(d < 10)]) for d in range(100)]
    trunc = [Doc([Turn(d < 13, ref=d < 10)]) for d in range(100)]
    return write_run(tmp_path / "run", RunSpec({"uta_gsm8k": base, "uta_gsm8k_trunc": trunc})).parent


def test_gate_flags_a_margin_smaller_than_the_judge_spread(tmp_path: Path, capsys) -> None:
    from uta_tasks.apps.gate.cli import main

    rules = tmp_path / "rules.yaml"
    rules.write_text("rules:\n  - 'uta_gsm8k_trunc: genuine_followup_diff >= 0.0'\n"
                     "  - 'uta_gsm8k: genuine_followup >= 0.0'\n")
    out = tmp_path / "gate.json"
    assert main([str(_run(tmp_path)), "--rules", str(rules), "--retest", str(_retest_file(tmp_path, 0.05)),
                 "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "within judge noise: the distance to the bound 0.030 is smaller than the judge's own spread 0.050" in text
    rows = json.loads(out.read_text())["rules"]
    assert rows[0]["judge_noise"] and rows[1]["judge_noise"] is None  # 0.10 from the bound is outside the noise


def test_report_lists_differences_within_the_judge_noise(tmp_path: Path) -> None:
    from uta_tasks.apps.report.cli import main

    out = tmp_path / "report"
    run = _run(tmp_path)
    assert main([str(run), "--output_path", str(out), "--retest", str(_retest_file(tmp_path, 0.05))]) == 0
    md = (out / "report.md").read_text()
    assert "### Judge test-retest" in md and "### Differences within the judge's noise" in md
    section = md.split("### Differences within the judge's noise")[1]
    assert "| org/model-a | 0 | uta_gsm8k_trunc | 3.0 | 5.0 |" in section
    quiet = tmp_path / "quiet"
    assert main([str(run), "--output_path", str(quiet), "--retest", str(_retest_file(tmp_path, 0.02))]) == 0
    assert "Differences within the judge's noise" not in (quiet / "report.md").read_text()
