"""The comparison's YAML, its plan (uta-eval --plan's counting for every model, and the total) and
its resume rule, on constructed runs (tests/runs/run_builder.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from compare_env import GSM8K, TOKENIZER
from run_builder import RunSpec, docs, write_run

from uta_tasks.apps.compare.cli import main
from uta_tasks.apps.compare.resume import Expected, run_state
from uta_tasks.apps.compare.spec import CompareError, load_comparison
from uta_tasks.apps.compare.steps import eval_argv, shown_command
from uta_tasks.schema import compare as names


def _write(path: Path, data: object) -> Path:
    path.write_text(yaml.safe_dump(data))
    return path


MODELS = [{"name": "a", "model": "hf", "model_args": "pretrained=org/a"},
          {"name": "b/saved", "model": "vllm", "model_args": "pretrained=org/b", "answers_from": "saved/b",
           "eval_args": ["--batch_size", "4"]}]


def test_the_file_is_read_with_each_models_answers_and_flags(tmp_path):
    c = load_comparison(_write(tmp_path / "m.yaml", {"tasks": "uta_gsm8k, uta_gsm8k_trunc", "limit": 5,
                                                      "metadata": {"judge": "none"}, "models": MODELS}))
    a, b = c.models
    assert c.tasks == ("uta_gsm8k", "uta_gsm8k_trunc") and c.limit == 5 and c.judge_via == names.JUDGE_LIVE
    assert b.slug == "b-saved" and b.answers_from == str(tmp_path / "saved" / "b")
    assert c.metadata_for(a) == {"judge": "none"} and c.metadata_for(b)["answers_from"] == b.answers_from
    argv = eval_argv(c, b, tmp_path / "runs" / "b", predict_only=True)
    assert argv[1:3] == ["-m", "uta_tasks.cli"] and argv[-3:] == ["--predict_only", "--batch_size", "4"]
    assert '"answers_from"' in argv[argv.index("--metadata") + 1] and argv[argv.index("--limit") + 1] == "5"
    hub = load_comparison(_write(tmp_path / "h.yaml", {"tasks": "uta", "models": [
        {**MODELS[0], "answers_from": "hf://datasets/org/a-details/org__a"}]}))
    assert hub.models[0].answers_from == "hf://datasets/org/a-details/org__a"


@pytest.mark.parametrize(("data", "message"), [
    ({"tasks": "uta", "models": [{**MODELS[0], "modle_args": "x"}]}, "unknown key(s) modle_args"),
    ({"tasks": "uta", "models": MODELS, "judge": "none"}, "unknown key(s) judge"),
    ({"tasks": "uta", "models": [MODELS[0], {**MODELS[0], "model_args": "pretrained=org/c"}]}, "share the folder"),
    ({"tasks": "uta", "models": [{**MODELS[0], "eval_args": ["--limit", "3"]}]}, "sets itself"),
    ({"tasks": "uta", "models": [{"name": "x", "model": "hf"}]}, "needs model"),
    ({"tasks": "uta", "models": MODELS, "judge_via": "post"}, "judge_via must be one of live, batch"),
    ({"tasks": "uta", "models": MODELS, "metadata": {"answers_from": "x"}}, "belongs to a model"),
    ({"models": MODELS}, "tasks must name"),
])
def test_a_file_that_is_not_a_comparison_is_refused_naming_the_key(tmp_path, data, message):
    with pytest.raises(CompareError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_comparison(_write(tmp_path / "m.yaml", data))


def _saved_uta_run(folder: Path, model: str) -> Path:
    """An earlier uta run of ``model`` on four gsm8k documents, saved as lm-eval's CLI saves it."""
    from pipeline_run import evaluate
    from saved_lm_eval_runs import GreedyLM, greedy_script, save
    from scripted_lm import load_tokenizer

    lm = GreedyLM(load_tokenizer("smollm2"), greedy_script)
    run = evaluate(lm, ["uta_gsm8k"], metadata={"judge": "none", "gsm8k_data_files": str(GSM8K)}, limit=4,
                   gen_kwargs={"max_gen_toks": 1024})  # whole answers: none ran into the budget
    return save(run, folder, model_args=f"pretrained={model}")


def test_the_plan_counts_every_model_and_the_total(tmp_path, capsys):
    saved_b = {**MODELS[1], "model_args": f"pretrained=org/b,tokenizer={TOKENIZER}",
               "answers_from": str(_saved_uta_run(tmp_path / "saved_b", "org/b"))}
    config = _write(tmp_path / "m.yaml", {
        "tasks": ["uta_gsm8k", "uta_gsm8k_trunc", "uta_gsm8k_question"], "limit": 4,
        "metadata": {"gsm8k_data_files": str(GSM8K), "judge_model": "gpt-5.4-mini"}, "models": [MODELS[0], saved_b]})
    assert main([str(config), "--output_path", str(tmp_path / "cmp"), "--plan", "--plan_price", "0.75,4.5"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.split()[:1] in (["a"], ["b/saved"],
                                                                                              ["total"])}
    # answers once, no completion, u and two perturbed u, judged
    assert rows["a"][1:7] == ["generated", "4", "4", "0", "12", "12"]
    # the saved uta run's answers are whole turns (it stopped at the end of turn only): none completed
    assert rows["b/saved"][1:7] == ["saved", "4", "0", "0", "12", "12"]
    assert rows["total"][1:6] == ["8", "4", "0", "24", "24"]
    assert "b/saved: answers read from" in out and "0 completed after a stop string and 0 after" in out
    assert "Batch API" in out and "$" in out and not (tmp_path / "cmp").exists()


def test_a_credential_in_model_args_never_reaches_a_log_line():
    shown = shown_command(["python", "-m", "uta_tasks.cli", "--model_args", "pretrained=org/a,api_key=sk-secret-123"])
    assert "sk-secret-123" not in shown and "pretrained=org/a" in shown


def _expected(**change: object) -> Expected:
    base = {"backend": "hf", "model_args": "pretrained=org/a", "docs": {"uta_gsm8k": 6, "uta_gsm8k_trunc": 6},
            "limit": None, "gen_kwargs": {"temperature": 0.0}, "metadata": {"judge_model": "judge-x"}, "judged": True}
    return Expected(**{**base, **change})  # type: ignore[arg-type]


def test_the_resume_rule_reads_the_runs_summary_and_provenance(tmp_path):
    folder = tmp_path / "runs" / "a"
    assert run_state(folder, _expected()).status == names.RUN_MISSING
    genuine = [d % 2 == 0 for d in range(6)]
    write_run(folder, RunSpec({"uta_gsm8k": docs(genuine), "uta_gsm8k_trunc": docs(genuine)}, model="org/a"))
    assert run_state(folder, _expected()).status == names.RUN_COMPLETE
    assert (next(folder.rglob("results_*.json")).parent / "summary.json").is_file(), "its summary, with fingerprints"
    cases = {
        "model_args": (_expected(model_args="pretrained=org/b"), names.RUN_DIFFERENT, "--model_args"),
        "backend": (_expected(backend="vllm"), names.RUN_DIFFERENT, "--model"),
        "limit": (_expected(limit=3.0), names.RUN_DIFFERENT, "--limit"),
        "metadata": (_expected(metadata={"judge_model": "judge-y"}), names.RUN_DIFFERENT, "judge_model"),
        "judged": (_expected(judged=False), names.RUN_DIFFERENT, "has verdicts"),
        "docs": (_expected(docs={"uta_gsm8k": 10}), names.RUN_INCOMPLETE, "evaluated 6 documents, the plan 10"),
        "task": (_expected(docs={"uta_gsm8k_question": 6}), names.RUN_INCOMPLETE, "not in the run"),
    }
    for what, (expected, status, reason) in cases.items():
        state = run_state(folder, expected)
        assert (state.status, reason in state.reason) == (status, True), (what, state)
