"""Overhead of the two-pass hook against two plain backend calls, in one process.

    python perf/two_pass_overhead.py [--docs 16] [--backend hf|vllm] [--model DIR]

Both sides generate the same N answers and the same N user turns with the same model
object: the baseline renders the prompts itself and calls ``generate_until`` twice; the
hook side runs the ``uta_ifbench`` requests through ``generate_user_turn`` (judge off).
The printed ratio is hook time / baseline time (1.00 = no overhead); the runs alternate
so that both sides see the same machine load.

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
import os
import statistics
import time

SHORTEST_OF = 4


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


def _baseline(lm, instances, gen: dict, user_max: int) -> float:
    from lm_eval.api.instance import Instance

    from uta_tasks.probe import role_switch
    from uta_tasks.probe.generation import split_gen_kwargs

    start = _clocks()
    rs = role_switch.build(lm.tokenizer)
    g1, g2 = split_gen_kwargs(gen, rs.stop, user_max)
    msgs = [inst.args[2]["messages"] for inst in instances]
    answers = lm.generate_until([Instance("generate_until", {}, (rs.assistant_prompt(m), g1), 0) for m in msgs])
    lm.generate_until([Instance("generate_until", {}, (rs.user_prompt(m, a), g2), 0) for m, a in zip(msgs, answers)])
    return _since(start)


def _hook(lm, instances) -> tuple[float, float]:
    start = _clocks()
    lm.generate_user_turn(instances)
    return _since(start)


def _clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> tuple[float, float]:
    """Wall seconds and this process's CPU seconds since ``start``."""
    wall, cpu = _clocks()
    return wall - start[0], cpu - start[1]


def measure(docs: int = 16, rounds: int = 2, backend: str = "hf", model: str | None = None,
            max_gen_toks: int = 48, user_max_gen_toks: int = 24, threads: int = 1) -> dict[str, float]:
    """Median seconds of the baseline and of the hook over ``rounds`` alternating runs: wall
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
    """
    from uta_tasks.embedded import smollm2

    lm = _model(backend, model or str(smollm2.prepare()), threads)
    instances = _requests(docs, user_max_gen_toks)
    gen = dict(instances[0].args[1], max_gen_toks=max_gen_toks)
    for inst in instances:
        inst.arguments = (inst.args[0], gen, inst.args[2])
    _baseline(lm, instances[:2], gen, user_max_gen_toks)  # warm-up
    base, hook = [], []
    for _ in range(rounds):
        base.append(_baseline(lm, instances, gen, user_max_gen_toks))
        hook.append(_hook(lm, instances))
    return {"base": statistics.median(w for w, _ in base), "hook": statistics.median(w for w, _ in hook),
            "base_cpu": statistics.median(c for _, c in base), "hook_cpu": statistics.median(c for _, c in hook)}


def bench() -> list[dict]:
    """``make bench`` row (perf/README.md): hook / two plain calls, HF backend, the embedded SmolLM2."""
    load = os.getloadavg()[0]
    start = time.perf_counter()
    m = measure()
    # CPU seconds: the model runs in this process on one thread, and a busy machine's other
    # processes would otherwise decide the ratio (wall-clock ratios of 1.64 and 0.82 were seen
    # at load 4-6 for the same code).
    return [{"name": "two-pass hook / two plain generate_until calls (hf, SmolLM2, 16 docs; CPU seconds)",
             "ratio": m["hook_cpu"] / m["base_cpu"], "goal": 1.1, "direction": "at most",
             "note": f"CPU: baseline {m['base_cpu']:.1f} s, hook {m['hook_cpu']:.1f} s; wall: baseline "
                     f"{m['base']:.1f} s, hook {m['hook']:.1f} s (medians of 2, 48 + 24 tokens, 1 thread); "
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
    args = parser.parse_args()
    m = measure(args.docs, args.rounds, args.backend, args.model, args.max_gen_toks, args.user_max_gen_toks,
                args.threads)
    print(f"docs={args.docs} backend={args.backend} rounds={args.rounds}")
    print(f"baseline (two plain generate_until calls): {m['base']:.2f} s wall, {m['base_cpu']:.2f} s CPU")
    print(f"two-pass hook (generate_user_turn):        {m['hook']:.2f} s wall, {m['hook_cpu']:.2f} s CPU")
    print(f"overhead ratio hook/baseline: {m['hook'] / m['base']:.3f} wall, {m['hook_cpu'] / m['base_cpu']:.3f} CPU "
          "(CPU counts only this process: not vLLM's engine process)")


if __name__ == "__main__":
    main()
