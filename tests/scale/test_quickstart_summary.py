"""The quickstart's closing output: no genuine rate next to verdicts that contradict
themselves, and the time of every phase."""

from __future__ import annotations

import json
from pathlib import Path

from uta_tasks.apps import quickstart
from uta_tasks.apps.quickstart.phases import SETUP_SECONDS_ENV, Phases
from uta_tasks.apps.quickstart.verdict_checks import check_run, contradiction_note, contradicts
from uta_tasks.runs import load_run
from uta_tasks.schema.verdict import Verdict

DATE = "2026-11-30T07-00-00.000000"
# The fields every logged probe record has (the tests below vary only the verdicts).
RECORD = {"task": "uta_ifbench_trunc", "benchmark": "ifbench", "perturbation": "trunc", "q": "q", "messages": [],
          "a": "a", "answer": "a", "reasoning_form": "plain", "history": "a", "a_prime": "a", "role_switch": {},
          "generation": {}, "given_answer": False}


def _verdict(label: str | None, genuine: bool | None, status: str = "judged") -> dict:
    return {"status": status, "label": label, "genuine": genuine}


def _results() -> dict:
    values = {"prompt_level_strict_acc,none": 0.0, "genuine_followup,none": 1.0, "genuine_followup_base,none": 0.5,
              "share_changed,none": 0.75, "label_new_task_prompt,none": 1.0, "unjudged,none": 0.0,
              "judge_calls_saved,none": 1.0}
    return {
        "results": {"uta_ifbench_trunc": {"alias": "uta_ifbench_trunc", **values}},
        "configs": {"uta_ifbench_trunc": {"metadata": {"uta_benchmark": "ifbench"}}},
        "n-samples": {"uta_ifbench_trunc": {"effective": 2}},
        "model_name": "smol",
    }


def _write_run(folder: Path, records: list[dict]) -> Path:
    """lm-eval's layout: results_<date>.json and samples_<task>_<date>.jsonl side by side."""
    folder.mkdir(parents=True)
    results = folder / f"results_{DATE}.json"
    results.write_text(json.dumps(_results()))
    lines = [json.dumps({"doc_id": i, "filtered_resps": [[json.dumps({**RECORD, **r})]]}) for i, r in enumerate(records)]
    (folder / f"samples_uta_ifbench_trunc_{DATE}.jsonl").write_text("\n".join(lines) + "\n")
    return results


def test_which_verdicts_contradict_themselves():
    def check(label: str | None, genuine: bool | None, status: str = "judged") -> bool:
        return contradicts(Verdict.from_dict(_verdict(label, genuine, status)))

    assert check("new_task_prompt", True)
    assert check("plausible_followup", False)
    assert not check("plausible_followup", True)
    assert not check("previous_turn_restate", False)
    assert not check("other", True) and not check("other", False)
    assert not check(None, None, status="unjudged") and not contradicts(None)


def test_the_summary_hides_a_genuine_rate_built_on_contradictions(tmp_path):
    """The issue's case: 'genuine 100.0%' printed next to a top label of new_task_prompt."""
    records = [
        {"verdict": _verdict("new_task_prompt", True), "verdict_ref": _verdict("previous_turn_restate", False)},
        {"verdict": _verdict("new_task_prompt", True), "verdict_ref": _verdict("plausible_followup", True)},
    ]
    results_path = _write_run(tmp_path / "smol", records)
    checks = check_run(results_path)
    assert checks["uta_ifbench_trunc"]["verdict"].contradictory == 2
    assert checks["uta_ifbench_trunc"]["verdict_ref"].contradictory == 0
    table = quickstart.summary_table(load_run(results_path.parent), checks).splitlines()
    assert table[0].split()[-1] == "contradictory"
    row = table[2].split()
    assert row[:5] == ["uta_ifbench_trunc", "2", "0.0", "-", "50.0"], table
    assert row[-1] == "2/4"
    assert table[0].split()[-2] == "pre-labelled" and row[-2] == "1"
    assert "100.0" not in table[2]
    note = contradiction_note(checks)
    assert note is not None and note.startswith("2 of 4 verdicts contradict themselves")


def test_a_consistent_run_shows_its_rates_and_no_note(tmp_path):
    records = [{"verdict": _verdict("plausible_followup", True), "verdict_ref": _verdict("other", True)},
               {"verdict": _verdict("plausible_followup", True), "verdict_ref": _verdict("previous_turn_restate", False)}]
    results_path = _write_run(tmp_path / "smol", records)
    checks = check_run(results_path)
    row = quickstart.summary_table(load_run(results_path.parent), checks).splitlines()[2].split()
    assert row[3:5] == ["100.0", "50.0"] and row[-1] == "0/4"
    assert contradiction_note(checks) is None


def test_the_quickstart_reads_its_run_once(tmp_path, monkeypatch):
    """The table and the verdict checks come from one reading of the run (issue 45)."""
    import uta_tasks.runs
    from uta_tasks.apps.quickstart import cli

    records = [{"verdict": _verdict("new_task_prompt", True), "verdict_ref": _verdict("other", True)}]
    results_path = _write_run(tmp_path / "smol", records)
    expected = quickstart.summary_table(load_run(results_path.parent), check_run(results_path))
    reads = []

    def counted(*args, **kwargs):
        reads.append(args)
        return load_run(*args, **kwargs)

    monkeypatch.setattr(cli, "load_run", counted)
    monkeypatch.setattr(uta_tasks.runs, "load_run", counted)
    monkeypatch.setattr(cli, "_steps", lambda args, judge, phases: (0, load_run(results_path.parent).files, judge))
    monkeypatch.setattr(cli, "choose_judge", lambda args, environ: type("J", (), {"describe": lambda self: "judge"})())
    assert cli._run(None) == 0
    assert len(reads) == 1
    assert quickstart.summary_table(load_run(results_path.parent, all_docs=True), check_run(results_path)) == expected


def test_samples_of_another_run_in_the_same_folder_are_not_counted(tmp_path):
    results_path = _write_run(tmp_path / "smol", [{"verdict": _verdict("plausible_followup", True)}])
    old = json.dumps({"doc_id": 0, "filtered_resps": [[json.dumps({**RECORD, "verdict": _verdict("other", True)})]]})
    (results_path.parent / "samples_uta_ifbench_trunc_2026-01-01T00-00-00.000000.jsonl").write_text(old + "\n")
    assert check_run(results_path)["uta_ifbench_trunc"]["verdict"].judged == 1


def test_phase_times_include_the_setup_make_measured():
    phases = Phases.from_environ({SETUP_SECONDS_ENV: "250"})
    with phases.phase("lm_eval"):
        pass
    phases.seconds["lm_eval"] = 95.4
    assert phases.line() == "time per phase: setup 4m10s, lm_eval 1m35s; total 5m45s"
    assert "setup" not in Phases.from_environ({}).seconds


def test_the_local_judge_servers_keep_their_verdicts_apart():
    """vLLM (default) and llama-server serve the same model name with other sampling: one
    cache namespace each, so a rerun never mixes their verdicts; replies are bounded."""
    from uta_tasks.apps.quickstart.judge_choice import LOCAL_VLLM_ARGS, local_judge_settings

    on_vllm, on_llama = local_judge_settings("vllm"), local_judge_settings("llama")
    assert on_vllm["judge_cache_namespace"] != on_llama["judge_cache_namespace"]
    assert on_vllm["judge_max_tokens"] == on_llama["judge_max_tokens"] == 128
    assert on_llama["judge_concurrency"] == 2 and on_vllm["judge_concurrency"] == 16
    args = list(LOCAL_VLLM_ARGS)

    def value(flag: str) -> str:
        return args[args.index(flag) + 1]

    assert on_vllm["judge_prelabel"] == on_llama["judge_prelabel"] == "on"
    assert json.loads(value("--override-generation-config")) == {"repetition_penalty": 1.2}
    assert json.loads(value("--structured-outputs-config"))["disable_any_whitespace"] is True
    judge = quickstart.choose_judge(quickstart.parse_args(["--local_judge", "llama"]), {})
    assert (judge.kind, judge.server) == ("local", "llama")
    assert judge.metadata()["judge_cache_namespace"] == on_llama["judge_cache_namespace"]
    # A real judge keeps the package defaults: pre-labels stay off until validated.
    real = quickstart.choose_judge(quickstart.parse_args([]), {"OPENAI_API_KEY": "sk-test"})
    assert real.kind == "openai" and "judge_prelabel" not in real.metadata()
