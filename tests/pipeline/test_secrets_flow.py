"""No secret a user can write leaves the process (issue 44, item 4), over the whole flow on
lm-eval's real evaluator with the scripted model and the judge double: run, uta-rejudge,
uta-summary, uta-gate, uta-report, annotation (packet and export), uta-agreement. Every file
written, stdout, stderr and every log record are searched for every secret value."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from pipeline_run import evaluate
from test_metrics import thanks_after_full_answers
from test_rejudge import _meta, _save

TASKS = ["uta_ifbench", "uta_ifbench_trunc"]
S = "Qx9leak"  # each secret is S + a digit: none may appear anywhere
# written by the user in --metadata: lm-eval writes it into the run's results
META_SECRETS = {"note": f"pw={S}1, then passphrase: {S}2 and more", "contact": f"X-Auth: {S}3",
                "nested": {"list": [{"passphrase": f"{S}4"}]}}


def _inject(results_file: Path) -> None:
    """What another tool or an older lm-eval leaves in a results file: a base_url with signed
    query values, a judge_headers entry."""
    data = json.loads(results_file.read_text())
    data["config"]["model_args"] = (f"pretrained=org/m,base_url=https://s3.example/v1?X-Amz-Signature={S}5"
                                    f"&X-Amz-Credential={S}6&pass={S}7&jwt={S}8&api-version=2024-10-21")
    for config in data["configs"].values():
        config["metadata"]["judge_headers"] = {"X-Custom-Auth": f"{S}9", "Content-Type": "application/json"}
    results_file.write_text(json.dumps(data))


def test_no_secret_reaches_any_output_stdout_stderr_or_log(scripted, judge_server, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           caplog: pytest.LogCaptureFixture) -> None:
    from uta_tasks.apps.agreement.cli import main as agreement_main
    from uta_tasks.apps.annotate.cli import export, prepare_packet
    from uta_tasks.apps.annotate.db import AnnotationDB
    from uta_tasks.apps.gate.cli import main as gate_main
    from uta_tasks.apps.rejudge.cli import main as rejudge_main
    from uta_tasks.apps.report.cli import main as report_main
    from uta_tasks.apps.summary import main as summary_main

    caplog.set_level(logging.DEBUG)
    scripted.script = thanks_after_full_answers
    judge = _meta(judge_server, tmp_path)
    live = evaluate(scripted, TASKS, limit=2, bootstrap_iters=0,
                    metadata={**judge, **META_SECRETS, "ifbench_unverifiable": "drop", "user_max_gen_toks": 16})
    _save(live, tmp_path / "run")
    (results_file,) = (tmp_path / "run").rglob("results_*.json")
    assert S not in results_file.read_text()  # the run's own results: the task configs lm-eval writes
    _inject(results_file)

    judged = tmp_path / "judged"
    for secret_url in (f"{judge_server.base_url}?jwt={S}0", f"{judge_server.base_url}?X-Amz-Signature={S}0"):
        refused = {**judge, "judge_base_url": secret_url}
        assert rejudge_main([str(tmp_path / "run"), "--metadata", json.dumps(refused),
                             "--output_path", str(tmp_path / "refused")]) == 2
    assert rejudge_main([str(tmp_path / "run"), "--metadata", json.dumps(judge), "--output_path", str(judged),
                         "--bootstrap_iters", "0"]) == 0
    assert summary_main([str(judged), str(tmp_path / "run")]) == 0
    rules = tmp_path / "gate.yaml"
    rules.write_text("version: 1\nsettings: {min_judged: 1}\nrules:\n"
                     "  - {task: uta_ifbench_trunc, metric: genuine_followup, op: '>=', value: 0.0}\n")
    gate = tmp_path / "gate"
    assert gate_main([str(judged), "--rules", str(rules), "--baseline", str(tmp_path / "run"), "--json",
                      str(gate / "gate.json"), "--junit", str(gate / "gate.xml"), "--markdown",
                      str(gate / "gate.md")]) == 0
    assert report_main([str(judged), str(tmp_path / "run"), "--output_path", str(tmp_path / "report")]) == 0
    db = tmp_path / "annotations.sqlite"
    size = prepare_packet(db, [str(judged)], n=4, seed=0, allocation="proportional", kinds=["verdict"])
    with AnnotationDB(db) as store:
        for position in range(size):
            store.answer("carol", position, {"label": "plausible_followup", "genuine": True})
    export(db, tmp_path / "human.jsonl")
    assert agreement_main([f"judge={judged}", f"human={tmp_path / 'human.jsonl'}", "--replicates", "0",
                           "--json", str(tmp_path / "agreement.json")]) in (0, 1)

    out, err = capsys.readouterr()
    assert S not in out and S not in err and S not in caplog.text
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != results_file]
    assert {p.name for p in written} >= {"summary.json", "gate.json", "gate.xml", "gate.md", "report.html",
                                         "report.md", "human.jsonl", "agreement.json"}
    assert any(p.name.startswith("results_") for p in judged.rglob("*"))
    leaks = [str(p) for p in written if S.encode() in p.read_bytes()]
    assert leaks == []


def test_uta_eval_prints_and_writes_model_args_without_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """lm-eval's command line prints ``--model_args`` and writes them to the results: through
    uta-eval, neither holds the credential (lm-eval's run is replaced by what it does with them)."""
    import lm_eval.__main__
    from lm_eval.loggers import EvaluationTracker

    from uta_tasks import cli

    model_args = f"pretrained=org/m,api_key={S}1,base_url=https://h.example/v1?jwt={S}2"

    def cli_evaluate() -> None:
        print(f"hf ({model_args}), gen_kwargs: (None), limit: 2")
        tracker = EvaluationTracker(output_path=str(tmp_path / "out"))
        tracker.general_config_tracker.model_name = "org/m"
        tracker.save_results_aggregated(results={"results": {}, "config": {"model": "hf", "model_args": model_args}},
                                        samples=None)

    monkeypatch.setattr(lm_eval.__main__, "cli_evaluate", cli_evaluate)
    monkeypatch.setattr("sys.argv", ["uta-eval", "run", "--model", "hf", "--model_args", model_args,
                                     "--tasks", "uta_gsm8k"])
    cli.main()
    out = capsys.readouterr().out
    assert "hf (pretrained=org/m," in out and S not in out
    (results,) = (tmp_path / "out").rglob("results_*.json")
    config = json.loads(results.read_text())["config"]
    assert S not in json.dumps(config) and config["model_args"].startswith("pretrained=org/m,")
    assert EvaluationTracker.save_results_aggregated.__name__ == "save_results_aggregated"  # restored
