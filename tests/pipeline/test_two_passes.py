"""Both passes through lm-eval's real evaluator with a scripted model."""

from __future__ import annotations

from pipeline_run import IFBENCH, evaluate, records


def test_one_backend_call_per_pass_with_deduplication(scripted):
    from uta_tasks.probe import hook

    results = evaluate(scripted, IFBENCH, limit=3)
    assert len(scripted.calls) == 2, "one backend call per pass"
    pass1, pass2 = scripted.calls
    assert all(p.endswith("<|im_start|>assistant\n") for p, _ in pass1)
    assert all(p.endswith("<|im_start|>user\n") for p, _ in pass2)
    # 3 tasks x 3 docs share 3 answers; base u equals both u_ref at T=0 (3 + 3 + 3 = 9 of 15).
    assert len(pass1) == 3 and hook.LAST_RUN["assistant"].requested == 9
    assert len(pass2) == 9 and hook.LAST_RUN["user"].requested == 15
    base = {r.q: r for r in records(results, "uta_ifbench")}
    for task in IFBENCH[1:]:
        for r in records(results, task):
            assert r.a == base[r.q].a and r.u_ref == base[r.q].u
    for _, kwargs in pass2:
        assert kwargs["max_gen_toks"] == 16 and "<|im_end|>" in kwargs["until"]
