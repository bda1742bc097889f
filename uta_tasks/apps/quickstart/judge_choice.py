"""Which judge scores the quickstart's user turns, and serving the local one."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import logging
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cpu_dtype import cpu_dtype
from .errors import QuickstartError
from .phases import clock

log = logging.getLogger("uta_tasks.apps.quickstart")

LOCAL_SERVERS = ("auto", "vllm", "llama")
# The local judge is the embedded 135M model on 127.0.0.1. It runs after generation,
# when the cores are free, so it gets them all.
#
# vLLM (default when installed: already there, nothing to build) batches every judge
# request in one engine; it starts in ~30 s. A 135M model loops ("a female knight, a
# female knight, ...") until max_tokens at T = 0, and between JSON fields it can emit
# whitespace forever: a repetition penalty (a server default; the judge sends only
# temperature) and xgrammar without free whitespace bound every reply. Measured on the
# 30 items of a 10-doc quickstart: 30 of 30 judged, at most 18 rationale words, 1,056
# output tokens, 11-27 s; plain settings cut 15 of 30 replies at 256 tokens.
# The schema costs little, and without it no reply parses: perf/judge_schema_speed.py
# measures it, docs/dev/quickstart.md holds the figures of every backend tried.
#
# llama-server (with UTA_NO_VLLM=1, or --local_judge llama) gets the same penalty, two
# slots and every core.
LOCAL_REPETITION_PENALTY = 1.2
LOCAL_VLLM_ARGS = (
    "--max-model-len", "4096", "--enforce-eager", "--seed", "0",
    "--generation-config", "vllm",
    "--override-generation-config", json.dumps({"repetition_penalty": LOCAL_REPETITION_PENALTY}),
    "--structured-outputs-config", json.dumps({"backend": "xgrammar", "disable_any_whitespace": True}),
)
LOCAL_SLOTS = 2
LOCAL_CTX = LOCAL_SLOTS * 4096
# The local vLLM judge starts beside lm_eval (its ~1-1.5 min start overlaps lm_eval's own
# engine start and generation): the preflight waits for it, at most this long.
LOCAL_START_WAIT = 600
# Bounded replies: a verdict takes ~35 tokens with the settings above; 128 leaves room
# and cuts a runaway reply early (it is then unjudged, and counted as such).
# Pre-labels are on for this judge only: its verdicts measure nothing, and a 135M judge
# calls a verbatim copy of the question genuine, where the rules say what it is (the rules:
# docs/judge.md, "Pre-labels"; the 135M judge's check: docs/dev/judge.md; off by default
# elsewhere until validated on a strong judge).
LOCAL_JUDGE_SETTINGS = {
    "judge_prelabel": "on",
    "judge_concurrency": 16,
    "judge_max_tokens": 128,
    "judge_max_retries": 0,
    "judge_timeout": 300,
}


def _default(key: str) -> str:
    """The default of judge setting ``key`` (the one place it is stated: its spec)."""
    from uta_tasks.judge.setting_specs import SPEC_BY_KEY

    return str(SPEC_BY_KEY[key].default)


def local_server_kind(choice: str) -> str:
    """``vllm`` or ``llama``: which server runs the local judge.

    Args:
        choice: ``--local_judge`` (``auto`` picks vLLM when it is installed).
    """
    if choice != "auto":
        return choice
    return "vllm" if importlib.util.find_spec("vllm") is not None else "llama"


def local_judge_settings(kind: str) -> dict[str, Any]:
    """The ``judge_*`` metadata of the local judge served by ``kind``; the cache namespace
    keeps its verdicts apart from the other server's and from other sampling settings.

    Args:
        kind: ``vllm`` or ``llama``.
    """
    settings: dict[str, Any] = dict(LOCAL_JUDGE_SETTINGS)
    if kind == "llama":
        settings["judge_concurrency"] = LOCAL_SLOTS
    else:
        settings["judge_start_wait"] = LOCAL_START_WAIT
    settings["judge_cache_namespace"] = f"quickstart-{kind}-rp{LOCAL_REPETITION_PENALTY}"
    return settings


@dataclass(frozen=True)
class Judge:
    """Which judge scores the user turns.

    Attributes:
        kind: ``local`` (a server started here), ``openai`` or ``endpoint`` (given URL), ``none``.
        model: model name sent to the endpoint.
        base_url: endpoint; None for a local judge until its server runs.
        settings: extra ``judge_*`` metadata keys.
        server: for a local judge, ``vllm`` or ``llama`` (llama-server).
    """

    kind: str
    model: str
    base_url: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    server: str = ""

    def metadata(self) -> dict[str, Any]:
        """The ``--metadata`` keys for lm-eval (never an API key)."""
        if self.kind == "none":
            return {"judge": "none"}
        meta: dict[str, Any] = {"judge": "openai", "judge_model": self.model}
        if self.base_url:
            meta["judge_base_url"] = self.base_url
        meta.update(self.settings)
        return meta

    def describe(self) -> str:
        """One paragraph saying who produced the verdicts and what they are worth."""
        if self.kind == "local":
            server = "vLLM" if self.server == "vllm" else "llama-server"
            return (
                f"Verdicts by the LOCAL judge: {self.model} (135M parameters) served by {server} at "
                f"{self.base_url}. It only shows that the pipeline works end to end; its verdicts are "
                f"not a measurement. Set OPENAI_API_KEY (judge {_default('judge_model')}, as in the paper) or "
                "pass --judge_base_url/--judge_model for a strong judge."
            )
        if self.kind == "openai":
            return f"Verdicts by the OpenAI API judge {self.model} ({self.base_url or _default('judge_base_url')})."
        if self.kind == "endpoint":
            return f"Verdicts by the judge {self.model} at {self.base_url} (given with --judge_base_url)."
        return "No judge (--judge none): the follow-up rates are empty; only accuracy is measured."


def choose_judge(args: argparse.Namespace, environ: Mapping[str, str]) -> Judge:
    """Pick the judge from the flags and the environment (see the module docstring).

    Args:
        args: parsed command line.
        environ: the environment (only ``OPENAI_API_KEY``'s presence is read).
    """
    if args.judge == "none":
        return Judge("none", "")
    if args.judge_base_url:
        if not args.judge_model:
            raise QuickstartError(
                "--judge_base_url needs --judge_model: name the model that endpoint serves"
            )
        return Judge("endpoint", args.judge_model, args.judge_base_url.rstrip("/"))
    has_key = bool(environ.get("OPENAI_API_KEY"))
    if args.judge == "openai" or (args.judge == "auto" and has_key):
        if not has_key:
            raise QuickstartError("--judge openai needs the API key in the environment variable OPENAI_API_KEY")
        return Judge("openai", args.judge_model or _default("judge_model"))
    from uta_tasks.servers.llama_server import MODEL_ALIAS

    server = local_server_kind(args.local_judge)
    return Judge("local", MODEL_ALIAS, settings=local_judge_settings(server), server=server)


def _no_watch() -> None:
    """Nothing runs beside lm_eval that needs watching."""


@dataclass(frozen=True)
class JudgeService:
    """The judge as lm_eval will reach it.

    Attributes:
        judge: the judge, its base URL known.
        watch: called every second while lm_eval runs; raises :class:`QuickstartError` when
            a local judge server that started beside lm_eval has stopped.
        started_beside: True when the server still starts while lm_eval runs (the
            preflight waits for it, ``judge_start_wait``), so starting it took no time of its own.
    """

    judge: Judge
    watch: Callable[[], None] = _no_watch
    started_beside: bool = False


@contextlib.contextmanager
def judge_endpoint(judge: Judge, log_dir: Path, model_dir: Path, env: Mapping[str, str]) -> Iterator[JudgeService]:
    """Yield the judge with its base URL; for a local judge, its server runs meanwhile.

    The local vLLM judge is yielded while it still starts: lm_eval loads its own engine and
    generates meanwhile, and its preflight waits for the judge (``judge_start_wait``).
    llama-server starts in about a second and is waited for.

    Args:
        judge: the chosen judge.
        log_dir: where the server's log goes.
        model_dir: the embedded model's Hugging Face folder (served by vLLM).
        env: the server's environment.
    """
    if judge.kind != "local":
        yield JudgeService(judge)
        return
    if judge.server == "vllm":
        from uta_tasks.servers.vllm_server import VllmServerError, vllm_server

        log_path = log_dir / "judge-vllm-serve.log"
        log.info("starting the local judge beside lm_eval (vllm serve on 127.0.0.1, about 1 min; log %s)", log_path)
        args = ("--dtype", cpu_dtype(), *LOCAL_VLLM_ARGS)
        with vllm_server(model_dir, log_path=log_path, served_name=judge.model, args=args, env=env,
                         wait=False) as server:
            started = time.monotonic()
            ready: list[float] = []

            def watch() -> None:
                try:
                    server.check_running()
                except VllmServerError as exc:
                    raise QuickstartError(f"the local judge stopped: {exc}") from None
                if not ready and server.healthy():
                    ready.append(time.monotonic() - started)
                    log.info("local judge ready at %s (pid %d), %s after its start", server.base_url, server.pid,
                             clock(ready[0]))

            yield JudgeService(Judge(judge.kind, judge.model, server.base_url, judge.settings, judge.server),
                               watch, started_beside=True)
        log.info("local judge stopped")
        return
    from uta_tasks.servers.llama_server import LocalServerError, llama_server

    log_path = log_dir / "llama-server.log"
    log.info("starting the local judge (llama-server on 127.0.0.1; log %s)", log_path)
    try:
        with llama_server(parallel=LOCAL_SLOTS, ctx_size=LOCAL_CTX, threads=os.cpu_count() or 1, log_path=log_path,
                          extra_args=("--repeat-penalty", str(LOCAL_REPETITION_PENALTY))) as url:
            log.info("local judge ready at %s (pid %d)", url, url.pid)
            yield JudgeService(Judge(judge.kind, judge.model, str(url), judge.settings, judge.server))
    except LocalServerError as exc:
        raise QuickstartError(f"the local judge did not start: {exc}") from None
    log.info("local judge stopped")
