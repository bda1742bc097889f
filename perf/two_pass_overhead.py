"""Overhead of the two-pass hook against two plain backend calls, in one process.

    python perf/two_pass_overhead.py [--docs 16] [--backend hf|vllm] [--model DIR]

Both sides generate the same N answers and the same N user turns with the same model
object: the baseline renders the prompts itself and calls ``generate_until`` twice; the
hook side runs the ``uta_ifbench`` requests through ``generate_user_turn`` (judge off).
The printed ratio is hook time / baseline time (1.00 = no overhead). Both sides are warmed
up first (each once, on two documents); then each round runs both sides in an order drawn
from a seeded ``random.Random`` (``--seed``), so that neither side always runs first, on a
warmer cache or a quieter machine. Every run's answers and user turns must equal the first
baseline run's: sides that generate different texts do not measure the same work, and the
benchmark fails (:class:`SidesDiffer`, and ``bench()``'s row says "FAILED").

The model runs on ``--threads`` threads (default 1). On a shared 2-core machine torch's
default (one OpenMP thread per core) makes every small operation wait at a barrier for
a thread the scheduler has put aside: SmolLM2 then generated 2 documents x 48 tokens in
61 s instead of 7.5 s (load average about 6), and ``bench()`` ran for more than 15
minutes. The ratio compares both sides on the same model object, so the thread count
changes the seconds, not what is compared. The prompts' prefill is most of the time
(a batch is padded to its longest prompt), so the documents are the ``--docs`` with the
shortest prompts among the first ``4 x --docs``.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import statistics
import time
from typing import Any

SHORTEST_OF = 4
SEED = 45
BASE, HOOK = "baseline", "hook"
log = logging.getLogger(__name__)


class SidesDiffer(RuntimeError):
    """The hook and the baseline generated different texts: the ratio would compare different work."""


def _model(backend: str, model_dir: str, threads: int):
    # Before torch (and vLLM's worker) start their OpenMP pools; set_num_threads for a torch
    # already imported in this process.
    os.environ["OMP_NUM_THREADS"] = str(threads)
    import torch

    torch.set_num_threads(threads)
    if backend == "vllm":
        from lm_eval.models.vllm_causallms import VLLM

        return VLLM(pretrained=model_dir, max_model_len=2048, dtype="float32")
    from lm_eval.models.huggingface import HFLM

    return HFLM(pretrained=model_dir, batch_size=16, device="cpu")


def _requests(n: int, user_max: int):
    """The ``n`` documents with the shortest prompts among the first ``4 n`` (see the module doc)."""
    import uta_tasks

    meta = {"judge": "none", "ifbench_unverifiable": "drop", "user_max_gen_toks": user_max}
    task = uta_tasks.task_manager(metadata=meta).load(["uta_ifbench"])["tasks"]["uta_ifbench"]
    task.build_all_requests(limit=SHORTEST_OF * n, rank=0, world_size=1)
    chars = {id(inst): sum(len(m["content"]) for m in inst.args[2]["messages"]) for inst in task.instances}
    return sorted(task.instances, key=lambda inst: chars[id(inst)])[:n]


Texts = tuple[list[str], list[str]]  # the answers and the user turns, in the documents' order


def _baseline(lm, instances, gen: dict, user_max: int) -> tuple[tuple[float, float], Texts]:
    from uta_tasks.lm_eval_compat import make_instance
    from uta_tasks.probe import role_switch
    from uta_tasks.probe.generation import split_gen_kwargs

    start = _clocks()
    rs = role_switch.build(lm.tokenizer)
    g1, g2 = split_gen_kwargs(gen, rs.stop, user_max)
    msgs = [inst.args[2]["messages"] for inst in instances]
    def request(i: int, prompt: str, kwargs: dict):  # lm-eval 0.4 and 0.5 build an Instance differently
        return make_instance("generate_until", {}, (prompt, kwargs), task_name="baseline", doc_id=i, repeats=1)

    answers = lm.generate_until([request(i, rs.assistant_prompt(m), g1) for i, m in enumerate(msgs)])
    users = lm.generate_until([request(i, rs.user_prompt(m, a), g2) for i, (m, a) in enumerate(zip(msgs, answers))])
    return _since(start), (list(answers), list(users))


def _hook(lm, instances) -> tuple[tuple[float, float], Texts]:
    from uta_tasks.schema.probe import ProbeRecord

    start = _clocks()
    out = lm.generate_user_turn(instances)
    clocks = _since(start)
    records = [ProbeRecord.from_json(text) for text in out]
    return clocks, ([r.a for r in records], [r.u for r in records])


def _check_same(reference: Texts, texts: Texts, side: str, run: int) -> None:
    """Raise :class:`SidesDiffer` naming the first document whose texts differ from the reference's."""
    for what, want, got in zip(("answer", "user turn"), reference, texts, strict=True):
        for doc, (a, b) in enumerate(zip(want, got, strict=True)):
            if a != b:
                raise SidesDiffer(f"two_pass_overhead: the {side} (run {run}) generated another {what} for document "
                                  f"{doc} than the baseline's first run: {b[:80]!r} instead of {a[:80]!r}; the hook "
                                  "must send the backend the prompts and settings the baseline sends")


def compare(lm: Any, instances: list, gen: dict, user_max_gen_toks: int, rounds: int = 2,
            seed: int = SEED) -> dict[str, list[tuple[float, float]]]:
    """Warm up both sides, then ``rounds`` rounds of both sides in a seeded random order, each
    run's texts checked against the first baseline run's.

    Args:
        lm: The model (any lm-eval model the hook is installed on).
        instances: The ``generate_user_turn`` requests.
        gen: The answers' generation settings.
        user_max_gen_toks: The user turns' token budget.
        rounds: Runs of each side.
        seed: Seeds the order of the sides in each round.

    Returns:
        Per side, each run's (wall, CPU) seconds.

    Raises:
        SidesDiffer: The sides generated different texts.
    """
    sides = {BASE: lambda batch: _baseline(lm, batch, gen, user_max_gen_toks), HOOK: lambda batch: _hook(lm, batch)}
    draw = random.Random(seed)
    warm = [BASE, HOOK]
    draw.shuffle(warm)
    for side in warm:
        sides[side](instances[:2])
    clocks: dict[str, list[tuple[float, float]]] = {BASE: [], HOOK: []}
    runs: list[tuple[str, int, Texts]] = []
    for run in range(rounds):
        order = [BASE, HOOK]
        draw.shuffle(order)
        for side in order:
            seconds, texts = sides[side](instances)
            clocks[side].append(seconds)
            runs.append((side, run, texts))
    reference = next(texts for side, _run, texts in runs if side == BASE)
    for side, run, texts in runs:
        _check_same(reference, texts, side, run)
    return clocks


def _clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> tuple[float, float]:
    """Wall seconds and this process's CPU seconds since ``start``."""
    wall, cpu = _clocks()
    return wall - start[0], cpu - start[1]


def measure(docs: int = 16, rounds: int = 2, backend: str = "hf", model: str | None = None,
            max_gen_toks: int = 48, user_max_gen_toks: int = 24, threads: int = 1,
            seed: int = SEED) -> dict[str, float]:
    """Median seconds of the baseline and of the hook over ``rounds`` runs in random order (:func:`compare`): wall
    (``base``, ``hook``) and this process's CPU (``base_cpu``, ``hook_cpu``; with HF the model
    runs in this process, so CPU seconds do not count the time other processes took the core).

    Args:
        docs: Documents per run.
        rounds: Runs of each side.
        backend: ``hf`` or ``vllm``.
        model: Model directory (default: the embedded SmolLM2).
        max_gen_toks: Answer tokens.
        user_max_gen_toks: User-turn tokens.
        threads: Threads of the model (see the module doc).
        seed: Seeds the order of the sides.

    Raises:
        SidesDiffer: The sides generated different texts.
    """
    from uta_tasks.embedded import smollm2

    lm = _model(backend, model or str(smollm2.prepare()), threads)
    instances = _requests(docs, user_max_gen_toks)
    gen = dict(instances[0].args[1], max_gen_toks=max_gen_toks)
    for inst in instances:
        inst.arguments = (inst.args[0], gen, inst.args[2])
    clocks = compare(lm, instances, gen, user_max_gen_toks, rounds, seed)
    base, hook = clocks[BASE], clocks[HOOK]
    return {"base": statistics.median(w for w, _ in base), "hook": statistics.median(w for w, _ in hook),
            "base_cpu": statistics.median(c for _, c in base), "hook_cpu": statistics.median(c for _, c in hook)}


def bench() -> list[dict]:
    """``make bench`` row (perf/README.md): hook / two plain calls, HF backend, the embedded SmolLM2."""
    load = os.getloadavg()[0]
    start = time.perf_counter()
    name = "two-pass hook / two plain generate_until calls (hf, SmolLM2, 16 docs; CPU seconds)"
    try:
        m = measure()
    except SidesDiffer as exc:
        log.error("%s", exc)
        return [{"name": name, "ratio": None, "goal": 1.1, "direction": "at most", "note": f"FAILED: {exc}"}]
    # CPU seconds: the model runs in this process on one thread, and a busy machine's other
    # processes would otherwise decide the ratio (wall-clock ratios of 1.64 and 0.82 were seen
    # at load 4-6 for the same code).
    return [{"name": name, "ratio": m["hook_cpu"] / m["base_cpu"], "goal": 1.1, "direction": "at most",
             "note": f"CPU: baseline {m['base_cpu']:.1f} s, hook {m['hook_cpu']:.1f} s; wall: baseline "
                     f"{m['base']:.1f} s, hook {m['hook']:.1f} s (medians of 2 in seeded random order after a warm-up of each, 48 + 24 "
                     f"tokens, 1 thread, the same texts on both sides); "
                     f"{time.perf_counter() - start:.0f} s in all; load average {load:.1f} -> {os.getloadavg()[0]:.1f}"}]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--backend", choices=("hf", "vllm"), default="hf")
    parser.add_argument("--model", default=None, help="model directory (default: the embedded SmolLM2)")
    parser.add_argument("--max-gen-toks", type=int, default=48)
    parser.add_argument("--user-max-gen-toks", type=int, default=24)
    parser.add_argument("--threads", type=int, default=1, help="model threads (see the module doc)")
    parser.add_argument("--seed", type=int, default=SEED, help="seeds the order of the sides in each round")
    args = parser.parse_args()
    m = measure(args.docs, args.rounds, args.backend, args.model, args.max_gen_toks, args.user_max_gen_toks,
                args.threads, args.seed)
    print(f"docs={args.docs} backend={args.backend} rounds={args.rounds}")
    print(f"baseline (two plain generate_until calls): {m['base']:.2f} s wall, {m['base_cpu']:.2f} s CPU")
    print(f"two-pass hook (generate_user_turn):        {m['hook']:.2f} s wall, {m['hook_cpu']:.2f} s CPU")
    print(f"overhead ratio hook/baseline: {m['hook'] / m['base']:.3f} wall, {m['hook_cpu'] / m['base_cpu']:.3f} CPU "
          "(CPU counts only this process: not vLLM's engine process)")


if __name__ == "__main__":
    main()
