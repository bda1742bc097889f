"""The quickstart's local judge with the reply schema against without it, on its own calls.

    python perf/judge_schema_speed.py [--run FOLDER] [--rounds 4] [--structured-outputs-config JSON]

The calls are the quickstart's: the judge prompts of a quickstart run (``--run``, an
output folder written by ``python -m uta_tasks.apps.quickstart``; by default one is made
first with ``--judge none``), pre-labelled and deduplicated as the judge does, rendered
with the default prompt version. They go through the real ``openai`` client to the
quickstart's own ``vllm serve`` (the embedded SmolLM2, the quickstart's flags and
environment) on 127.0.0.1, all at once, as the judge sends them:

- with the schema: the judge's own request (``response_format``, ``judge_max_tokens``,
  temperature 0), each reply read by the judge's parser (a reply that fails it would be
  unjudged: the quickstart's judge does not retry);
- without it: the same prompts, no ``response_format``, each made to generate exactly as
  many tokens as its schema reply (``min_tokens``, ``ignore_eos``): the same work, so the
  time ratio is the schema's cost per token.

The two alternate ``--rounds`` times on one server, twice: *cold*, the server's prefix
cache emptied before each batch (``/reset_prefix_cache``, with ``VLLM_SERVER_DEV_MODE``),
so every prompt is prefilled as in the quickstart, where each is sent once; then *warm*,
the prompts already cached, so that only decoding is compared, where a per-token cost of
the schema would show undiluted. Each ratio is the median of the per-round ratios
(seconds with / seconds without). The unconstrained replies (no schema, no length forced)
are measured once, for their natural length and how many the judge could read. The
server's CPU seconds (its whole process group) are printed beside the wall time: on a
shared 2-core machine they vary less.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROUNDS = 5
PROBE_TOKENS = 8
GOAL = 1.2


@dataclass(frozen=True)
class Batch:
    """One batch of the prompts, sent all at once.

    Attributes:
        seconds: wall time from the first request to the last reply.
        cpu: CPU seconds the server's processes used meanwhile.
        engine_cpu: of which its EngineCore process (the scheduler).
        tokens: output tokens per prompt.
        prompt_tokens: prompt tokens over the batch.
        verdicts: per prompt, ``judged`` or why the judge's parser rejected the reply.
    """

    seconds: float
    cpu: float
    engine_cpu: float
    tokens: list[int]
    prompt_tokens: int
    verdicts: list[str]

    @property
    def rate(self) -> float:
        """Output tokens per second."""
        return sum(self.tokens) / self.seconds

    @property
    def unparsed(self) -> int:
        """Replies the judge's parser rejects."""
        return sum(verdict != "judged" for verdict in self.verdicts)


def quickstart_run(work: Path) -> Path:
    """Run the quickstart with ``--judge none`` into ``work`` and return its output folder."""
    out = work / "quickstart"
    command = [sys.executable, "-m", "uta_tasks.apps.quickstart", "--judge", "none", "--output_path", str(out)]
    print("making the quickstart's samples:", " ".join(command[1:]), flush=True)
    subprocess.run(command, check=True)
    return out


def judge_prompts(run: Path) -> list[list[dict[str, str]]]:
    """The distinct prompts the quickstart's local judge sends for the run in ``run``."""
    from uta_tasks.apps.quickstart.judge_choice import local_judge_settings
    from uta_tasks.judge import prelabel
    from uta_tasks.judge.prompt import load_template
    from uta_tasks.judge.settings import JudgeSettings
    from uta_tasks.probe import judging
    from uta_tasks.runs.rescore import load_scored

    settings = JudgeSettings.from_metadata({"judge": "openai", "judge_model": "x", **local_judge_settings("vllm")})
    records = [record for task in load_scored([run]) for doc in task.records for record in doc]
    items = [item for record in records for _, item in judging.items(record)]
    if settings.prelabel:
        items = [items[index] for index in prelabel.partition(items).rest]
    distinct = {item.fingerprint(): item for item in items}
    template = load_template(settings.prompt)
    return [template.render(item) for item in distinct.values()]


def _server_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds so far of the server's process group, and of its EngineCore (the scheduler,
    where the grammar's token masks are computed) alone."""
    import psutil

    total = engine = 0.0
    try:
        root = psutil.Process(pid)
        for process in (root, *root.children(recursive=True)):
            times = process.cpu_times()
            total += times.user + times.system
            if "EngineCore" in process.name():
                engine += times.user + times.system
    except psutil.NoSuchProcess:
        pass
    return total, engine


async def _one(client: Any, body: dict[str, Any]) -> tuple[int, int, str]:
    from uta_tasks.judge.errors import ReplyError
    from uta_tasks.judge.parse import parse_reply

    reply = await client.chat.completions.create(**body)
    choice = reply.choices[0]
    try:
        parse_reply(choice.message.content, choice.finish_reason)
        verdict = "judged"
    except ReplyError as exc:
        verdict = str(exc)[:80]
    return reply.usage.completion_tokens, reply.usage.prompt_tokens, verdict


async def _batch(client: Any, bodies: list[dict[str, Any]], pid: int) -> Batch:
    (cpu, engine), start = _server_cpu(pid), time.perf_counter()
    replies = await asyncio.gather(*(_one(client, body) for body in bodies))
    seconds = time.perf_counter() - start
    cpu_after, engine_after = _server_cpu(pid)
    return Batch(seconds, cpu_after - cpu, engine_after - engine, [reply[0] for reply in replies], sum(reply[1] for reply in replies),
                 [reply[2] for reply in replies])


def _bodies(prompts: list[list[dict[str, str]]], schema: bool, lengths: list[int] | None = None) -> list[dict[str, Any]]:
    from uta_tasks.apps.quickstart.judge_choice import local_judge_settings
    from uta_tasks.judge.params import RequestParams
    from uta_tasks.judge.settings import JudgeSettings

    settings = JudgeSettings.from_metadata({"judge": "openai", "judge_model": "judge", **local_judge_settings("vllm")})
    params = RequestParams(settings)
    bodies = []
    for index, messages in enumerate(prompts):
        body = params.build(messages)
        if not schema:
            del body["response_format"]
        if lengths is not None:
            body[params.token_param] = lengths[index]
            body["extra_body"] = {"min_tokens": lengths[index], "ignore_eos": True}
        bodies.append(body)
    return bodies


@dataclass(frozen=True)
class Figures:
    """What one measurement found.

    Attributes:
        config: the ``--structured-outputs-config`` the server ran with.
        calls: distinct judge calls.
        first: the server's first request with the schema and the next one without it (short,
            as the judge's preflight): the backend's start and the schema's compilation.
        free: one batch without the schema and without a forced length.
        cold: per round, (with the schema, without it at the same lengths), each after the
            server's prefix cache was emptied: every prompt is prefilled, as in the quickstart.
        warm: the same with the prompts in the prefix cache: decoding only.
        load: load average before and after.
    """

    config: str
    calls: int
    first: tuple[Batch, Batch]
    free: Batch
    cold: list[tuple[Batch, Batch]]
    warm: list[tuple[Batch, Batch]]
    load: tuple[float, float]

    @staticmethod
    def ratio(pairs: list[tuple[Batch, Batch]]) -> float:
        """Median over rounds of seconds with the schema / seconds without."""
        return statistics.median(s.seconds / n.seconds for s, n in pairs)

    @property
    def unparsed(self) -> int:
        """Schema replies, over every schema batch, that the judge's parser rejects."""
        return sum(s.unparsed for s, _ in self.cold + self.warm)

    def note(self, pairs: list[tuple[Batch, Batch]]) -> str:
        """The figures behind one ratio, in one line."""
        med = statistics.median
        with_s, without = [s for s, _ in pairs], [n for _, n in pairs]
        cpu = med(s.cpu / n.cpu for s, n in pairs)
        engine = (med(b.engine_cpu for b in with_s), med(b.engine_cpu for b in without))
        return (
            f"{self.calls} quickstart judge calls ({self.free.prompt_tokens} prompt tokens) at once, "
            f"{len(pairs)} alternating rounds (medians); "
            f"with schema {med(b.seconds for b in with_s):.2f} s, {med(b.rate for b in with_s):.1f} output tok/s; "
            f"without, same {med(sum(b.tokens) for b in with_s):.0f} output tokens, "
            f"{med(b.seconds for b in without):.2f} s, {med(b.rate for b in without):.1f} tok/s; server CPU "
            f"seconds ratio {cpu:.2f} (EngineCore {engine[0]:.1f} s with, {engine[1]:.1f} s without); schema replies unparsed {self.unparsed} of {len(self.cold + self.warm) * self.calls}; "
            f"unconstrained (no schema, no forced length) {sum(self.free.tokens)} tokens in {self.free.seconds:.2f} s, "
            f"{self.free.unparsed} of {self.calls} unparsed; first request with the schema "
            f"{self.first[0].seconds:.2f} s, the next without {self.first[1].seconds:.2f} s; "
            f"--structured-outputs-config {self.config}; "
            f"load average {self.load[0]:.1f} -> {self.load[1]:.1f}"
        )


def _reset_prefix_cache(port: int) -> None:
    import httpx

    httpx.post(f"http://127.0.0.1:{port}/reset_prefix_cache", timeout=600).raise_for_status()


def measure(prompts: list[list[dict[str, str]]], rounds: int = ROUNDS, config: str | None = None,
            log_dir: Path | None = None) -> Figures:
    """Start the quickstart's judge server, alternate with and without the schema, stop it.

    Args:
        prompts: the judge prompts.
        rounds: alternations, cold and warm each.
        config: ``--structured-outputs-config`` instead of the quickstart's.
        log_dir: where the server's log goes (default: a temporary folder).
    """
    import openai

    from uta_tasks.apps.quickstart.command import child_env
    from uta_tasks.apps.quickstart.cpu_dtype import cpu_dtype
    from uta_tasks.apps.quickstart.judge_choice import LOCAL_VLLM_ARGS
    from uta_tasks.embedded import smollm2
    from uta_tasks.servers.vllm_server import vllm_server

    args = list(LOCAL_VLLM_ARGS)
    if config is not None:
        args[args.index("--structured-outputs-config") + 1] = config
    used = args[args.index("--structured-outputs-config") + 1]
    load = os.getloadavg()[0]

    async def pair(client: Any, pid: int, port: int, cold: bool, label: str) -> tuple[Batch, Batch]:
        if cold:
            _reset_prefix_cache(port)
        with_schema = await _batch(client, _bodies(prompts, True), pid)
        if cold:
            _reset_prefix_cache(port)
        without = await _batch(client, _bodies(prompts, False, with_schema.tokens), pid)
        print(f"{label}: with {with_schema.seconds:.2f} s ({with_schema.cpu:.1f} CPU s, EngineCore "
              f"{with_schema.engine_cpu:.1f}), without {without.seconds:.2f} s ({without.cpu:.1f} CPU s, EngineCore "
              f"{without.engine_cpu:.1f}), {sum(with_schema.tokens)} tokens, ratio "
              f"{with_schema.seconds / without.seconds:.2f}; load {os.getloadavg()[0]:.1f}", flush=True)
        return with_schema, without

    async def run(base_url: str, pid: int, port: int) -> tuple[tuple[Batch, Batch], Batch, list[tuple[Batch, Batch]],
                                                               list[tuple[Batch, Batch]]]:
        client = openai.AsyncOpenAI(base_url=base_url, api_key="no-key", max_retries=0, timeout=3600)
        try:
            # The judge's preflight: one short request in the schema before the batch (the
            # structured-output backend starts and compiles the schema), then one without it.
            first = await _batch(client, _bodies(prompts[:1], True, [PROBE_TOKENS]), pid)
            plain = await _batch(client, _bodies(prompts[1:2], False, [PROBE_TOKENS]), pid)
            print(f"first request with the schema {first.seconds:.2f} s, the next without it {plain.seconds:.2f} s "
                  f"({PROBE_TOKENS} tokens each, both prefilled)", flush=True)
            free = await _batch(client, _bodies(prompts, False), pid)
            print(f"unconstrained: {free.seconds:.2f} s, {sum(free.tokens)} tokens, {free.unparsed} unparsed", flush=True)
            cold = [await pair(client, pid, port, True, f"cold round {i + 1}/{rounds}") for i in range(rounds)]
            warm = [await pair(client, pid, port, False, f"warm round {i + 1}/{rounds}") for i in range(rounds)]
            return (first, plain), free, cold, warm
        finally:
            await client.close()

    with tempfile.TemporaryDirectory(prefix="uta-schema-speed-") as tmp:
        log_path = (log_dir or Path(tmp)) / "judge-vllm-serve.log"
        server_args = ("--dtype", cpu_dtype(), *args)
        # VLLM_SERVER_DEV_MODE: the /reset_prefix_cache endpoint, so that every cold batch prefills its prompts.
        env = {**child_env(os.environ), "VLLM_SERVER_DEV_MODE": "1"}
        with vllm_server(smollm2.prepare(), log_path=log_path, served_name="judge", args=server_args,
                         env=env) as server:
            first, free, cold, warm = asyncio.run(run(server.base_url, server.pid, server.port))
    return Figures(used, len(prompts), first, free, cold, warm, (load, os.getloadavg()[0]))


def prompts_of(run: Path | None) -> list[list[dict[str, str]]]:
    """The judge prompts of ``run``, or of a quickstart run made now."""
    if run is not None:
        return judge_prompts(run)
    with tempfile.TemporaryDirectory(prefix="uta-schema-speed-run-") as tmp:
        return judge_prompts(quickstart_run(Path(tmp)))


def bench() -> list[dict]:
    """``make bench`` row (perf/README.md): the local judge with / without the reply schema."""
    figures = measure(prompts_of(None))
    return [
        {"name": "local judge with / without the reply schema, the quickstart's calls as sent (prefill and decode)",
         "ratio": figures.ratio(figures.cold), "goal": GOAL, "direction": "at most", "note": figures.note(figures.cold)},
        {"name": "local judge with / without the reply schema, decoding only (prompts in the prefix cache)",
         "ratio": figures.ratio(figures.warm), "goal": GOAL, "direction": "at most", "note": figures.note(figures.warm)},
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, default=None,
                        help="a quickstart output folder (default: run the quickstart with --judge none first)")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--structured-outputs-config", default=None,
                        help="vllm serve's --structured-outputs-config JSON instead of the quickstart's")
    parser.add_argument("--log-dir", type=Path, default=None, help="keep the server's log here")
    args = parser.parse_args()
    figures = measure(prompts_of(args.run), args.rounds, args.structured_outputs_config, args.log_dir)
    for what, pairs in (("as sent (prefill and decode)", figures.cold), ("decoding only", figures.warm)):
        print(f"ratio with/without the schema, {what}: {figures.ratio(pairs):.3f} (goal at most {GOAL})")
        print("  " + figures.note(pairs))


if __name__ == "__main__":
    main()
