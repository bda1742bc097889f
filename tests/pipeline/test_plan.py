"""``uta-eval ... --plan``: its counts equal those of a real run of the same settings (lm-eval's
evaluator, a scripted model, the real judge client against the scripted judge server)."""

from __future__ import annotations

import json

import pytest
from pipeline_run import DATA, IFBENCH, evaluate

from uta_tasks.apps.plan.counts import make_plan
from uta_tasks.apps.plan.documents import contacts, whole_sentences
from uta_tasks.apps.plan.plans import Price
from uta_tasks.probe import hook


def _item_calls(server) -> list:
    return [r for r in server.chat_requests() if r.user_turn is not None]


def varied(prompt: str, kwargs: dict) -> str:
    """Every call its own text, so that sampled requests never coincide by chance (the plan
    counts requests; identical texts could only lower the run's judge calls)."""
    varied.calls += 1  # type: ignore[attr-defined]
    n = varied.calls  # type: ignore[attr-defined]
    if prompt.endswith("<|im_start|>assistant\n"):
        words = " ".join(f"w{i}" for i in range(60))
        return f"Answer {n}: {words} The answer is {n}."
    return f"Why {n}?"


GREEDY = {"max_gen_toks": 64}
SAMPLED = {"max_gen_toks": 64, "temperature": 0.7, "do_sample": True}


@pytest.mark.parametrize(("tasks", "gen", "extra"), [
    (IFBENCH, GREEDY, {}),
    (["uta_ifbench_trunc"], GREEDY, {}),
    (IFBENCH, SAMPLED, {"user_samples": 2}),
], ids=["greedy-all", "greedy-trunc-alone", "sampled-user-samples"])
def test_plan_counts_equal_a_real_run(scripted, judge_server, tmp_path, tasks, gen, extra):
    varied.calls = 0  # type: ignore[attr-defined]
    scripted.script = varied
    meta = {"judge_base_url": judge_server.base_url, "judge_model": "fault-judge", "judge_cache": "none",
            "ifbench_unverifiable": "drop", "user_max_gen_toks": 16, **extra}
    plan = make_plan(tasks, metadata=meta, gen_kwargs=gen, limit=3)
    evaluate(scripted, tasks, limit=3, metadata=meta, gen_kwargs=gen)
    (bench,) = plan.benchmarks
    assert bench.docs.loaded and bench.docs.n == 3
    assert plan.pass1 == hook.LAST_RUN["assistant"].generated
    assert plan.pass2 == hook.LAST_RUN["user"].generated
    assert plan.judge_calls == len(_item_calls(judge_server)) > 0


def test_plan_of_a_data_set_that_cannot_load_counts_the_paper_size(tmp_path):
    meta = {"judge": "none", "gsm8k_data_files": str(tmp_path / "missing.jsonl")}
    plan = make_plan(["uta_gsm8k_all", "lm_eval_own_task"], metadata=meta)
    (bench,) = plan.benchmarks
    assert (bench.docs.n, bench.docs.loaded) == (1319, False)
    assert "did not load" in bench.docs.origin and "paper's N = 1319" in bench.docs.origin
    assert "missing.jsonl" in bench.docs.origin
    assert plan.skipped == ("lm_eval_own_task",)
    # greedy: one answer per doc, the unperturbed u once plus one per perturbed task; judge off
    assert (plan.pass1, plan.pass2, plan.judge_calls) == (1319, 3 * 1319, 0)


def test_plan_command_prints_counts_tokens_and_cost(capsys):
    from uta_tasks.cli import main

    meta = {"judge_model": "some-judge", "ifbench_unverifiable": "drop"}
    argv = ["uta-eval", "--model", "vllm", "--tasks", "uta_ifbench_all", "--limit", "4", "--metadata",
            json.dumps(meta), "--plan", "--plan_price", "1,2", "--plan_answer_tokens", "100",
            "--plan_user_tokens", "20", "--plan_reply_tokens", "50"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.argv", argv)
        with pytest.raises(SystemExit) as done:
            main()
    assert done.value.code == 0
    out = capsys.readouterr().out
    plan = make_plan(["uta_ifbench_all"], metadata=meta, limit=4)
    assert (plan.pass1, plan.pass2, plan.judge_calls) == (4, 12, 12)
    assert f"{plan.judge_calls:,} calls after de-duplication" in out
    tokens_in = plan.input_tokens(100, 20)
    price = Price(1.0, 2.0)
    assert f"{tokens_in:,} in, {12 * 50:,} out; ${price.cost(tokens_in, 600):,.2f} live" in out
    assert price.cost(2_000_000, 1_000_000) == 4.0 and price.cost(2_000_000, 1_000_000, batch=True) == 2.0
    # the fixed part is the real template around the real prompts: more than the template alone
    assert plan.input_tokens(0, 0) > 12 * 200


def _online(mp: pytest.MonkeyPatch, online: bool) -> None:
    import datasets

    mp.setattr(datasets.config, "HF_HUB_OFFLINE", not online)


@pytest.mark.parametrize("online", [True, False], ids=["online", "offline"])
def test_plan_says_what_it_reads_and_contacts(online, capsys):
    from uta_tasks.apps.plan.command import main

    meta = {"judge": "none", "gsm8k_data_files": str(DATA / "gsm8k_test.jsonl")}
    with pytest.MonkeyPatch.context() as mp:
        _online(mp, online)
        mp.delenv("NLTK_DOWNLOAD_URL", raising=False)
        # the contacts are those of the loaders' own settings, read before anything is loaded
        assert contacts("gsm8k", meta) == ()  # local files: the Hub is not asked
        assert contacts("gsm8k", {}) == ((("the Hugging Face Hub", "openai/gsm8k"),) if online else ())
        nltk = contacts("ifeval", {"ifeval_data_files": "x.jsonl"})
        assert [what for what, _ in nltk] == (["NLTK's data index https://raw.githubusercontent.com/nltk/nltk_data/"
                                               "gh-pages/index.xml"] if online else [])
        assert contacts("ifeval", {"ifeval_data_files": "x.jsonl", "nltk_download": "off"}) == ()
        assert main(["--tasks", "uta_gsm8k", "--limit", "2", "--metadata", json.dumps(meta)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Plan: no model is loaded and no judge is called.")
    assert "Read: the uta task files, the judge prompt followupeval-v4 and each benchmark's documents" in out
    assert "Network: nothing is contacted; the documents come from local files" in out


def test_plan_lists_each_contact_once():
    from uta_tasks.apps.plan.documents import Documents

    hub, nltk = ("the Hugging Face Hub", "openai/gsm8k"), ("NLTK's data index X", "only if missing")
    docs = [Documents(1, True, "loaded", contacts=c) for c in ((hub,), (("the Hugging Face Hub", "google/IFEval"),
                                                                        nltk), (nltk,))]
    plan = make_plan(["uta_gsm8k"], metadata={"judge": "none", "gsm8k_data_files": str(DATA / "gsm8k_test.jsonl")})
    import dataclasses

    benches = tuple(dataclasses.replace(plan.benchmarks[0], docs=d) for d in docs)
    assert dataclasses.replace(plan, benchmarks=benches).contacts == (
        "the Hugging Face Hub (openai/gsm8k, google/IFEval)", "NLTK's data index X (only if missing)")


@pytest.mark.parametrize("online", [True, False], ids=["online", "offline"])
def test_the_loaders_advice_fits_the_environment(online):
    from uta_tasks.datasets.gpqa import source

    with pytest.MonkeyPatch.context() as mp:
        _online(mp, online)
        hint = source("gpqa_main").fix_hint()
    assert ("or set HF_HUB_OFFLINE=1" in hint) is online
    assert ("HF_HUB_OFFLINE=1 is set here" in hint) is not online
    assert hint.endswith("`huggingface-cli login`.")


def test_the_plan_gives_a_loaders_reason_in_whole_sentences():
    url = "https://huggingface.co/datasets/Idavidrein/gpqa"
    long = f"First sentence {'x' * 300}. Second sentence, access on {url}, then log in. Third {'y' * 400}."
    kept = whole_sentences(long)  # 700 characters at most: the third sentence would pass them
    assert kept.startswith("First sentence") and kept.endswith(f"access on {url}, then log in.")
    assert whole_sentences(long, limit=400) == f"First sentence {'x' * 300}."  # never inside the URL
    assert whole_sentences("one " * 400) == ("one " * 400).strip() + "."  # one sentence is never cut
    assert whole_sentences("  spread\n over   lines.  ") == "spread over lines."


def test_a_plan_offline_gives_whole_sentences_and_no_advice_to_go_offline():
    import huggingface_hub

    with pytest.MonkeyPatch.context() as mp:
        _online(mp, False)
        mp.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
        plan = make_plan(["uta_gpqa_main"], metadata={"judge": "none"}, limit=2)
    (bench,) = plan.benchmarks
    origin = bench.docs.origin
    assert not bench.docs.loaded and "The loader said:" in origin
    assert "or set HF_HUB_OFFLINE=1" not in origin and "HF_HUB_OFFLINE=1 is set here" in origin
    assert "https://huggingface.co/datasets/Idavidrein/gpqa," in origin  # the URL whole
    assert origin.endswith(".")
    assert plan.contacts == ()
