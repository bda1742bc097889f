"""uta_conversations probed at every user turn, judged, saved, and drawn by the report as a
rate-by-turn curve (real evaluator, scripted model, scripted judge on 127.0.0.1)."""

from __future__ import annotations

from pipeline_run import DATA, evaluate

TASK = "uta_conversations"


def asks_only_at_turn_two(prompt: str, gen_kwargs: dict) -> str:
    """Pass 2 of a held-out doc: a question (genuine to the scripted judge) at user turn 2 only."""
    header = "<|im_start|>user\n"
    assert prompt.endswith(header), prompt[-40:]
    return "Why is that so?" if prompt.count(header) == 2 else "ok"


def _save(results: dict, out) -> None:
    from lm_eval.loggers import EvaluationTracker

    tracker = EvaluationTracker(output_path=str(out))
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    tracker.save_results_samples(task_name=TASK, samples=samples[TASK])


def test_report_draws_the_rate_against_the_user_turn(scripted, judge_server, tmp_path):
    from uta_tasks.apps.report.turns import turn_counts, turns_figure
    from uta_tasks.runs.collect import collect

    scripted.script = asks_only_at_turn_two
    meta = {"judge_base_url": judge_server.base_url, "judge_model": "fault-judge",
            "judge_cache": str(tmp_path / "judge.sqlite"), "user_max_gen_toks": 16,
            "conversations_data_files": str(DATA / "conversations_multiturn.jsonl"),
            "conversations_probe_turn": "every"}
    results = evaluate(scripted, [TASK], metadata=meta, bootstrap_iters=0)
    assert len(results["samples"][TASK]) == 6
    _save(results, tmp_path / "run")

    data = collect([tmp_path / "run"])
    (series,) = turn_counts(data).values()
    assert series == {2: (2, 2), 3: (2, 0), 4: (2, 0)}  # (judged, genuine) per user turn
    svg = turns_figure(data)
    assert svg is not None and "user turn the model writes" in svg
    assert svg.count("</title></circle>") == 3  # one marker per user turn
