"""Which judge scores the quickstart's user turns, and serving the local one."""

from __future__ import annotations

import argparse
import contextlib
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import QuickstartError

log = logging.getLogger("uta_tasks.quickstart")

OPENAI_JUDGE_MODEL = "gpt-5.4-mini"
# The local judge on a 2-core CPU: 2 slots of 4096 tokens (more slots only split the
# same cores, and each slot keeps the shared judge prompt cached), short replies (a
# valid verdict is ~50-100 tokens; a 135M model that rambles is cut early), no
# retry (at temperature 0 it would repeat the same reply), and a generous timeout
# because requests queue behind each other.
LOCAL_SLOTS = 2
LOCAL_CTX = LOCAL_SLOTS * 4096
LOCAL_JUDGE_SETTINGS = {
    "judge_concurrency": LOCAL_SLOTS,
    "judge_max_tokens": 256,
    "judge_max_retries": 0,
    "judge_timeout": 300,
}
@dataclass(frozen=True)
class Judge:
    """Which judge scores the user turns.

    Attributes:
        kind: ``local`` (llama-server started here), ``openai`` or ``endpoint`` (given URL), ``none``.
        model: model name sent to the endpoint.
        base_url: endpoint; None for a local judge until its server runs.
        settings: extra ``judge_*`` metadata keys.
    """

    kind: str
    model: str
    base_url: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)

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
            return (
                f"Verdicts by the LOCAL judge: {self.model} (135M parameters) served by llama-server at "
                f"{self.base_url}. It only shows that the pipeline works end to end; its verdicts are "
                "not a measurement. Set OPENAI_API_KEY (judge gpt-5.4-mini, as in the paper) or pass "
                "--judge-base-url/--judge-model for a strong judge."
            )
        if self.kind == "openai":
            return f"Verdicts by the OpenAI API judge {self.model} ({self.base_url or 'https://api.openai.com/v1'})."
        if self.kind == "endpoint":
            return f"Verdicts by the judge {self.model} at {self.base_url} (given with --judge-base-url)."
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
                "--judge-base-url needs --judge-model: name the model that endpoint serves"
            )
        return Judge("endpoint", args.judge_model, args.judge_base_url.rstrip("/"))
    has_key = bool(environ.get("OPENAI_API_KEY"))
    if args.judge == "openai" or (args.judge == "auto" and has_key):
        if not has_key:
            raise QuickstartError("--judge openai needs the API key in the environment variable OPENAI_API_KEY")
        return Judge("openai", args.judge_model or OPENAI_JUDGE_MODEL)
    from uta_tasks.judge.local_server import MODEL_ALIAS

    return Judge("local", MODEL_ALIAS, settings=dict(LOCAL_JUDGE_SETTINGS))


@contextlib.contextmanager
def judge_endpoint(judge: Judge, log_dir: Path) -> Iterator[Judge]:
    """Yield the judge with its base URL; for a local judge, llama-server runs meanwhile."""
    if judge.kind != "local":
        yield judge
        return
    from uta_tasks.judge.local_server import llama_server

    log_path = log_dir / "llama-server.log"
    log.info("starting the local judge (llama-server on 127.0.0.1; log %s)", log_path)
    with llama_server(parallel=LOCAL_SLOTS, ctx_size=LOCAL_CTX, log_path=log_path) as url:
        log.info("local judge ready at %s (pid %d)", url, url.pid)
        yield Judge(judge.kind, judge.model, str(url), judge.settings)
    log.info("local judge stopped")
