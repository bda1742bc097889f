"""The gate on constructed runs whose outcome is known: exit codes 0, 1 and 2 and every output."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
import yaml
from run_builder import RunSpec, docs, write_run

from uta_tasks.apps.gate import GateInputError, run_gate
from uta_tasks.apps.gate.cli import main as gate_main

N = 40


def _genuine(k: int, n: int = N) -> list[bool]:
    return [i < k for i in range(n)]


@pytest.fixture
def make(tmp_path):
    """Write a run under tmp_path/<name> and return its folder."""

    def build(name: str, **kwargs):
        tasks = kwargs.pop("tasks", None) or {
            "uta_gsm8k": docs(_genuine(kwargs.pop("k", 20)), correct=[i % 4 != 0 for i in range(N)]),
            "uta_gsm8k_trunc": docs(_genuine(kwargs.pop("k_trunc", 30)), ref=_genuine(5)),
        }
        spec = RunSpec(tasks, groups={"uta_gsm8k_all": ["uta_gsm8k", "uta_gsm8k_trunc"]}, **kwargs)
        return write_run(tmp_path / name, spec).parent

    return build


@pytest.fixture
def rules(tmp_path):
    """Write a rules file and return its path."""

    def build(*rule_list, **settings):
        path = tmp_path / "gate.yaml"
        doc = {"rules": list(rule_list)}
        if settings:
            doc["settings"] = settings
        path.write_text(yaml.safe_dump(doc))
        return path

    return build


def _run(args, capsys):
    code = gate_main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_every_rule_holds_exit_0_and_all_outputs_written(make, rules, tmp_path, capsys):
    cand = make("cand")
    r = rules(
        {"task": "uta_gsm8k_trunc", "metric": "genuine_followup", "op": ">=", "value": 0.10},
        "uta_gsm8k_all: label_previous_turn_restate <= 0.9",
        "uta_gsm8k: accuracy >= 0.5",
        "uta_gsm8k: unjudged_share <= 0.02",
    )
    out = tmp_path / "o"
    code, stdout, _ = _run([cand, "--rules", r, "--json", out / "g.json", "--junit", out / "g.xml",
                            "--markdown", out / "g.md"], capsys)
    assert code == 0, stdout
    assert "gate PASSED (exit 0): 4 passed, 0 failed, 0 undecided" in stdout
    line = next(x for x in stdout.splitlines() if x.startswith("uta_gsm8k_trunc: genuine_followup >= 0.1"))
    assert "0.750" in line and "[0.598, 0.858]" in line and "40" in line and "PASS" in line
    data = json.loads((out / "g.json").read_text())
    assert data["exit_code"] == 0 and [x["status"] for x in data["rules"]] == ["pass"] * 4
    suite = ET.parse(out / "g.xml").getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "0", "0")
    assert "## uta-gate: PASSED" in (out / "g.md").read_text()


def test_a_failed_bound_exits_1_and_junit_names_it(make, rules, tmp_path, capsys):
    cand = make("cand")
    r = rules({"task": "uta_gsm8k", "metric": "genuine_followup", "op": ">=", "value": 0.9, "name": "rate floor"},
              "uta_gsm8k: accuracy >= 0.5")
    code, stdout, _ = _run([cand, "--rules", r, "--junit", tmp_path / "g.xml"], capsys)
    assert code == 1
    assert "rate floor: FAIL: whole interval on the wrong side" in stdout
    root = ET.parse(tmp_path / "g.xml").getroot()
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert cases["rate floor"].find("failure") is not None
    assert "0.500" in cases["rate floor"].find("failure").get("message")
    assert cases["uta_gsm8k: accuracy >= 0.5"].find("failure") is None


def test_default_mode_uses_the_interval_strict_mode_the_point(make, rules, capsys):
    cand = make("cand")  # uta_gsm8k rate 20/40 = 0.5, Wilson [0.352, 0.648]
    r = rules("uta_gsm8k: genuine_followup >= 0.55")
    assert _run([cand, "--rules", r], capsys)[0] == 0
    code, stdout, _ = _run([cand, "--rules", r, "--strict"], capsys)
    assert code == 1 and "strict (point estimates)" in stdout
    assert _run([cand, "--rules", rules("uta_gsm8k: genuine_followup >= 0.55", strict=True)], capsys)[0] == 1


@pytest.mark.parametrize("rule,settings,cause", [
    ("uta_ifeval: genuine_followup >= 0.1", {}, "task or group 'uta_ifeval' is not in the candidate run"),
    ("uta_gsm8k: pct_changed >= 0.1", {}, "metric 'pct_changed' is not reported for 'uta_gsm8k'"),
    ("uta_gsm8k: genuine_followup >= 0.1", {"min_judged": 50}, "too few judged turns (candidate n=40 < min_judged=50)"),
    ("uta_gsm8k: genuine_followup_wrong >= 0.1", {"min_judged": 20}, "too few judged turns (candidate n=10"),
])
def test_undecidable_rules_exit_2_naming_the_cause(make, rules, capsys, rule, settings, cause):
    code, stdout, _ = _run([make("cand"), "--rules", rules(rule, **settings)], capsys)
    assert code == 2
    assert cause in stdout and "gate UNDECIDED (exit 2)" in stdout


def test_nothing_judged_exits_2(make, rules, capsys):
    cand = make("cand", tasks={"uta_gsm8k": docs([None] * 5)})
    code, stdout, _ = _run([cand, "--rules", rules("uta_gsm8k: genuine_followup >= 0.1")], capsys)
    assert code == 2 and "no judged turn" in stdout


def test_an_undecided_rule_outranks_a_failed_one(make, rules, capsys):
    code, _, _ = _run([make("cand"), "--rules", rules("uta_gsm8k: genuine_followup >= 0.9",
                                                       "uta_nope: genuine_followup >= 0.1")], capsys)
    assert code == 2


def test_malformed_rules_and_missing_runs_exit_2_with_a_message(make, tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("rules:\n  - {task: uta_gsm8k, metric: genuine_followup, op: '=~', value: 1}\n")
    code, _, err = _run([make("cand"), "--rules", bad], capsys)
    assert code == 2 and "cannot decide" in err and "op '=~'" in err and "bad.yaml: rule 1" in err
    good = tmp_path / "good.yaml"
    good.write_text("rules: ['uta_gsm8k: genuine_followup >= 0.1']\n")
    code, _, err = _run([tmp_path / "missing", "--rules", good], capsys)
    assert code == 2 and "candidate:" in err and "does not exist" in err


def test_regression_without_baseline_exits_2(make, rules, capsys):
    code, _, err = _run([make("cand"), "--rules", rules({"task": "uta_gsm8k", "metric": "genuine_followup",
                                                          "max_drop": 0.05})], capsys)
    assert code == 2 and "pass --baseline" in err


def test_paired_regression_fails_when_the_whole_interval_drops_beyond_the_margin(make, rules, capsys, tmp_path):
    base = make("base", k=30)
    cand = make("cand", k=10)  # the same 40 docs: 30 genuine before, 10 now
    r = rules({"task": "uta_gsm8k", "metric": "genuine_followup", "max_drop": 0.05})
    code, stdout, _ = _run([cand, "--rules", r, "--baseline", base, "--json", tmp_path / "g.json"], capsys)
    assert code == 1, stdout
    (rule,) = json.loads((tmp_path / "g.json").read_text())["rules"]
    assert rule["method"] == "paired_bootstrap" and rule["n"] == 40
    assert rule["value"] == pytest.approx(-0.5) and rule["ci_high"] < -0.05
    assert (rule["candidate"], rule["baseline"]) == (0.25, 0.75)


def test_paired_regression_passes_for_an_unchanged_model(make, rules, capsys):
    r = rules({"task": "uta_gsm8k_all", "metric": "genuine_followup", "max_drop": 0.0},
              {"task": "uta_gsm8k_all", "metric": "label_previous_turn_restate", "max_rise": 0.0})
    assert _run([make("cand"), "--rules", r, "--baseline", make("base")], capsys)[0] == 0


def test_regression_without_samples_uses_newcombe(make, rules, tmp_path):
    base = make("base", k=30, samples=False)
    cand = make("cand", k=10)
    result = run_gate(cand, rules({"task": "uta_gsm8k", "metric": "genuine_followup", "max_drop": 0.05}), base)
    (r,) = result.results
    assert r.method == "newcombe" and r.status == "fail" and result.exit_code == 1


@pytest.mark.parametrize("field,base_kwargs,cause", [
    ("judge_model", {"judge_model": "judge-other"},
     "mismatched judge_model for 'uta_gsm8k': candidate 'judge-x' vs baseline 'judge-other'"),
    ("prompt_version", {"prompt_version": "followupeval-v2"}, "mismatched prompt_version"),
    ("temperature", {"temperature": 0.7}, "mismatched temperature for 'uta_gsm8k': candidate 0.0 vs baseline 0.7"),
    ("pass2_context", {"pass2_context": "template"},
     "mismatched pass2_context for 'uta_gsm8k': candidate 'trace' vs baseline 'template'"),
    ("truncate_scope", {"truncate_scope": "final_answer"}, "mismatched truncate_scope"),
])
def test_mismatched_settings_between_candidate_and_baseline_exit_2(make, rules, field, base_kwargs, cause):
    base = make("base", **base_kwargs)
    result = run_gate(make("cand"), rules({"task": "uta_gsm8k", "metric": "genuine_followup", "max_drop": 0.05}),
                      base)
    assert result.exit_code == 2
    assert cause in result.results[0].note
    allowed = rules({"task": "uta_gsm8k", "metric": "genuine_followup", "max_drop": 0.05},
                    same=[k for k in ("judge_model", "prompt_version", "temperature", "pass2_context",
                                      "truncate_scope") if k != field])
    assert run_gate(make("cand2"), allowed, base).exit_code == 0


def test_run_gate_raises_for_malformed_rules(make, tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text("settings: {}\n")
    with pytest.raises(GateInputError, match="'rules' must be a non-empty list"):
        run_gate(make("cand"), path)


@pytest.mark.parametrize("damage", ["nested", "not_json", "wrong_type"])
def test_a_run_the_gate_cannot_read_is_exit_2_with_the_junit_and_json_files_naming_the_cause(
        make, rules, tmp_path, capsys, damage):
    cand = make("cand")
    (results,) = cand.glob("results_*.json")
    if damage == "nested":  # 100,000 levels: json would raise RecursionError, which exits 1 ("a rule failed")
        results.write_text('{\n"results":\n' + "[" * 100_000 + "]" * 100_000 + "\n}")
        cause = f"{results}, line 3, nests JSON more than 100 levels deep"
    elif damage == "not_json":
        results.write_text(results.read_text()[:40])
        cause = f"{results} is not valid JSON"
    else:
        data = json.loads(results.read_text())
        data["configs"] = ["not", "a", "dict"]
        results.write_text(json.dumps(data))
        cause = f"{results}: 'configs' is list, not the dict lm-eval writes"
    code, out, err = _run([cand, "--rules", rules("uta_gsm8k: genuine_followup >= 0.1"),
                           "--junit", tmp_path / "g.xml", "--json", tmp_path / "g.json"], capsys)
    assert code == 2 and cause in out + err
    (case,) = ET.parse(tmp_path / "g.xml").getroot().iter("testcase")
    (error,) = case.iter("error")
    assert cause in error.get("message")
    assert cause in (tmp_path / "g.json").read_text()
