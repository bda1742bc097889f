"""Wrapped lm-eval tasks through lm-eval's real evaluator with the real SmolLM2: an MGSM
language and a BBH chain-of-thought task, each on a small local file in the task's own schema."""

from __future__ import annotations

from pathlib import Path

import pytest
from runs import NO_JUDGE, evaluate, records

from uta_tasks.wrap.check import plan
from uta_tasks.wrap.yamls import write

pytestmark = pytest.mark.slow
DATA = Path(__file__).resolve().parents[1] / "fixtures" / "data"
MGSM, BBH = "mgsm_direct_de", "bbh_cot_zeroshot_date_understanding"


def test_wrapped_mgsm_and_bbh_run_end_to_end(lm, tmp_path):
    write(tmp_path, plan([MGSM, BBH]), {})
    meta = {**NO_JUDGE, f"{MGSM}_data_files": str(DATA / "mgsm_de_sample.jsonl"),
            f"{BBH}_data_files": str(DATA / "bbh_date_understanding_sample.jsonl")}
    tasks = [f"uta_wrap_{MGSM}", f"uta_wrap_{BBH}_trunc"]
    results = evaluate(lm, tasks, metadata=meta, include=(tmp_path,), limit=1)

    mgsm = results["results"][f"uta_wrap_{MGSM}"]
    assert 0.0 <= mgsm["exact_match_flexible-extract,none"] <= 1.0
    assert 0.0 <= mgsm["exact_match_remove_whitespace,none"] <= 1.0
    for r in records(results, f"uta_wrap_{MGSM}"):
        assert r["benchmark"] == f"lm-eval:{MGSM}"
        assert r["q"].startswith("Frage: ") and r["q"].endswith("\nAntwort:")  # lm-eval's German prompt
        assert isinstance(r["u"], str)

    bbh = results["results"][f"uta_wrap_{BBH}_trunc"]
    assert 0.0 <= bbh["exact_match_flexible-extract,none"] <= 1.0 and "share_changed,none" in bbh
    for r in records(results, f"uta_wrap_{BBH}_trunc"):
        assert r["messages"][0] == {"role": "system", "content": "Infer the date from context.\n\n"}
        assert r["q"].startswith("Q: ") and r["q"].endswith("A: Let's think step by step.")
        assert r["truncation"] is not None
    for task in tasks:  # every doc scored by the task's own filters, one value per (metric, filter)
        for sample in results["samples"][task]:
            assert {k for k in sample if k.startswith("exact_match")} == {
                m.split(",")[0] for m in results["results"][task] if m.startswith("exact_match") and "stderr" not in m}
