"""lm-eval run options through the probe: --use_cache, repeats, --predict_only, a plain
lm-eval task in the same run."""

from __future__ import annotations

import json

from pipeline_run import IFBENCH, evaluate, records


def test_use_cache_rerun_generates_nothing(scripted, tmp_path):
    cache = str(tmp_path / "lm_cache")
    first = evaluate(scripted, IFBENCH, limit=2, use_cache=cache)
    assert len(scripted.calls) == 2
    scripted.calls.clear()
    second = evaluate(scripted, IFBENCH, limit=2, use_cache=cache)
    assert scripted.calls == []
    for task in IFBENCH:
        assert [(r.a, r.u, r.u_ref) for r in records(second, task)] == [(r.a, r.u, r.u_ref) for r in records(first, task)]


def test_repeats_give_k_records_per_doc_and_sampled_requests_are_not_merged(scripted, tmp_path):
    import uta_tasks

    base = f"{uta_tasks.include_path()}/ifbench/uta_ifbench.yaml"
    (tmp_path / "uta_ifbench_r3.yaml").write_text(f"include: {base}\ntask: uta_ifbench_r3\nrepeats: 3\n")
    gen = {"max_gen_toks": 64, "temperature": 0.7, "do_sample": True}
    results = evaluate(scripted, ["uta_ifbench_r3"], include=(tmp_path,), limit=2, gen_kwargs=gen)
    samples = results["samples"]["uta_ifbench_r3"]
    assert [len(s["filtered_resps"][0]) for s in samples] == [3, 3]
    pass1, pass2 = scripted.calls
    assert len(pass1) == 6 and len(pass2) == 6  # sampled: 2 docs x 3 repeats, never merged
    assert all(r.generation["user"]["temperature"] == 0.7 for r in records(results, "uta_ifbench_r3"))


def test_predict_only_logs_records_without_judging_or_scores(scripted, judge_server):
    meta = {"judge_base_url": judge_server.base_url, "judge_model": "fault-judge",
            "ifbench_unverifiable": "drop", "user_max_gen_toks": 16}
    results = evaluate(scripted, ["uta_ifbench_trunc"], limit=2, metadata=meta, predict_only=True)
    assert judge_server.chat_requests() == []
    recs = records(results, "uta_ifbench_trunc")
    assert len(recs) == 2 and all(r.verdict is None and r.u for r in recs)
    assert "genuine_followup,none" not in results["results"]["uta_ifbench_trunc"]


def test_plain_lm_eval_task_in_the_same_run_is_untouched(scripted, tmp_path):
    data = tmp_path / "plain.jsonl"
    data.write_text("".join(json.dumps({"text": f"Count to {i}:"}) + "\n" for i in range(3, 6)))
    (tmp_path / "plain_echo.yaml").write_text(
        "task: plain_echo\ndataset_path: json\n"
        f"dataset_kwargs:\n  data_files:\n    test: {data}\n"
        "test_split: test\noutput_type: generate_until\ndoc_to_text: '{{text}}'\ndoc_to_target: ''\n"
        "generation_kwargs:\n  until: ['\\n']\n  max_gen_toks: 8\nmetric_list:\n  - metric: exact_match\n"
    )

    def script(prompt, kwargs):
        return "plain" if prompt.startswith("Count to") else scripted_default(prompt, kwargs)

    from scripted_lm import chatml_script as scripted_default

    scripted.script = script
    results = evaluate(scripted, ["uta_ifbench", "plain_echo"], include=(tmp_path,), limit=3)
    plain = [c for c in scripted.calls if c[0][0].startswith("Count to")]
    assert len(plain) == 1 and sorted(p for p, _ in plain[0]) == ["Count to 3:", "Count to 4:", "Count to 5:"]
    assert len(scripted.calls) == 3  # the plain task's call, and one per probe pass
    assert "exact_match,none" in results["results"]["plain_echo"]


def test_question_pool_setting_reaches_the_cue_and_the_record(scripted):
    from pipeline_run import NO_JUDGE

    from uta_tasks.probe.perturb import question_pool

    for pool in ("question_pool_v1", "question_pool_v2"):
        results = evaluate(scripted, ["uta_ifbench_question"], limit=2, metadata={**NO_JUDGE, "question_pool": pool})
        for r in records(results, "uta_ifbench_question"):
            assert r.question_pool == pool and r.cue in question_pool(pool) and r.a_prime.endswith(" " + r.cue)
