"""``python -m uta_tasks.quickstart``: the user-turn probe end to end on this machine.

1. prepares the embedded SmolLM2-135M-Instruct model (once; later runs reuse it);
2. picks the judge: ``--judge-base-url`` if given, else the OpenAI API when
   ``OPENAI_API_KEY`` is set (model gpt-5.4-mini), else a local llama.cpp server on
   127.0.0.1 running the same 135M model, which checks the plumbing and measures
   nothing;
3. runs the real ``lm_eval --model vllm ... --tasks uta_ifbench,uta_ifbench_trunc,
   uta_ifbench_question`` with small generation limits, so it fits a 2-core CPU;
4. prints lm-eval's results table, a short summary, and which judge produced the verdicts.

Every process it starts (lm_eval with its vLLM engine, llama-server) is stopped when it
ends, fails, or is interrupted (Ctrl-C, SIGTERM, SIGHUP).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import logging
import math
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

log = logging.getLogger("uta_tasks.quickstart")

DEFAULT_TASKS = "uta_ifbench,uta_ifbench_trunc,uta_ifbench_question"
OPENAI_JUDGE_MODEL = "gpt-5.4-mini"
# Environment for lm_eval; a value the user already set wins.
CHILD_ENV_DEFAULTS = {
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}
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
_STOP_GRACE = (("SIGINT", 10.0), ("SIGTERM", 10.0), ("SIGKILL", 5.0))
_HEARTBEAT_SECONDS = 60.0
_PR_SET_PDEATHSIG = 1


class QuickstartError(RuntimeError):
    """The quickstart cannot go on; the message says what to change."""


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


def model_args(backend: str, model_dir: Path, max_model_len: int, seed: int) -> str:
    """``--model_args`` for the backend.

    Args:
        backend: ``vllm`` or ``hf``.
        model_dir: Hugging Face model directory.
        max_model_len: context length for vLLM.
        seed: sampling seed for vLLM.
    """
    if backend == "vllm":
        return f"pretrained={model_dir},dtype=bfloat16,max_model_len={max_model_len},seed={seed},enforce_eager=True"
    return f"pretrained={model_dir},dtype=float32,device=cpu"


def lm_eval_command(args: argparse.Namespace, model_dir: Path, judge: Judge, python: str = sys.executable) -> list[str]:
    """The exact ``lm_eval run`` command line the quickstart runs.

    Args:
        args: parsed command line.
        model_dir: Hugging Face model directory.
        judge: the chosen judge (its base URL known).
        python: interpreter that runs lm_eval.
    """
    from uta_tasks import include_path

    gen_kwargs = f"max_gen_toks={args.max_gen_toks}"
    if args.temperature is not None:
        gen_kwargs += f",temperature={args.temperature}"
    command = [
        python, "-m", "lm_eval", "run",
        "--model", args.backend,
        "--model_args", model_args(args.backend, model_dir, args.max_model_len, args.seed),
        "--include_path", include_path(),
        "--tasks", args.tasks,
        "--limit", str(args.limit),
        "--batch_size", "auto" if args.backend == "vllm" else str(args.batch_size),
        "--gen_kwargs", gen_kwargs,
        "--metadata", json.dumps({**judge.metadata(), **task_metadata(args)}, sort_keys=True),
        "--log_samples",
        "--output_path", str(args.output_path),
    ]
    return command


def task_metadata(args: argparse.Namespace) -> dict[str, Any]:
    """Task settings besides the judge's: the user-turn token limit, and what to do with
    IFEval/IFBench documents whose verifier lacks NLTK data here (no package ships
    IFBench's POS tagger)."""
    return {
        "user_max_gen_toks": args.user_max_gen_toks,
        "ifbench_unverifiable": args.unverifiable,
        "ifeval_unverifiable": args.unverifiable,
    }


def child_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment of lm_eval: offline hubs and vLLM's CPU settings, user values kept."""
    env = dict(environ)
    for key, value in CHILD_ENV_DEFAULTS.items():
        env.setdefault(key, value)
    return env


def _child_setup() -> None:
    # Own process group (the stop reaches vLLM's engine processes too), and SIGTERM
    # if the quickstart dies without cleaning up.
    os.setsid()
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGINT)


def stop_group(process: subprocess.Popen) -> None:
    """Stop a child and its process group: SIGINT, then SIGTERM, then SIGKILL (bounded waits)."""
    for name, grace in _STOP_GRACE:
        try:
            os.killpg(process.pid, getattr(signal, name))
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue
        # The leader is gone; make sure nothing else is left in its group.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        return
    log.error("process group %d did not stop after SIGKILL", process.pid)


def _heartbeat(done: threading.Event, started: float, what: str) -> None:
    while not done.wait(_HEARTBEAT_SECONDS):
        log.info("%s still running (%s elapsed)", what, _elapsed(started))


def run_child(command: Sequence[str], env: Mapping[str, str], what: str) -> int:
    """Run a command in its own process group with a heartbeat; stop the group on any exit."""
    started = time.monotonic()
    process = subprocess.Popen(list(command), env=dict(env), stdin=subprocess.DEVNULL, preexec_fn=_child_setup)
    done = threading.Event()
    beat = threading.Thread(target=_heartbeat, args=(done, started, what), daemon=True)
    beat.start()
    try:
        return process.wait()
    finally:
        done.set()
        if process.poll() is None:
            log.warning("stopping %s (pid %d) and its subprocesses", what, process.pid)
        stop_group(process)


def _elapsed(started: float) -> str:
    seconds = int(time.monotonic() - started)
    return f"{seconds // 60}m{seconds % 60:02d}s"


def find_results(output_path: Path, since: float) -> Path | None:
    """The newest ``results_*.json`` lm-eval wrote under ``output_path`` after ``since``."""
    found = [p for p in output_path.rglob("results_*.json") if p.stat().st_mtime >= since]
    return max(found, key=lambda p: p.stat().st_mtime, default=None)


def _metric(values: Mapping[str, Any], name: str) -> float | None:
    value = values.get(f"{name},none")
    if isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value)):
        return float(value)
    return None


def _fmt(value: float | None, percent: bool = True) -> str:
    if value is None:
        return "-"
    return f"{100 * value:.1f}" if percent else f"{value:g}"


def summary_table(results: Mapping[str, Any]) -> str:
    """A compact table of the uta tasks in an lm-eval results JSON: accuracy, genuine
    follow-up rate (perturbed and base), % changed and unjudged turns."""
    from uta_tasks.datasets import BENCHMARKS

    header = ("task", "n", "accuracy", "genuine %", "base %", "changed %", "top label", "unjudged")
    rows = [header]
    for task, values in sorted(results.get("results", {}).items()):
        if not task.startswith("uta_") or task.endswith("_all") or task in ("uta", "uta_base", "uta_trunc", "uta_question"):
            continue
        bench = ((results.get("configs", {}).get(task) or {}).get("metadata") or {}).get("uta_benchmark")
        primary = getattr(BENCHMARKS.get(bench), "primary", None)
        labels = {k.split(",")[0][len("label_"):]: v for k, v in values.items()
                  if k.startswith("label_") and k.endswith(",none") and isinstance(v, (int, float)) and not math.isnan(v)}
        top = max(labels, key=labels.get) if labels else None
        n = (results.get("n-samples", {}).get(task) or {}).get("effective", "?")
        rows.append((
            task,
            str(n),
            _fmt(_metric(values, primary)) if primary else "-",
            _fmt(_metric(values, "genuine_followup")),
            _fmt(_metric(values, "genuine_followup_base")),
            _fmt(_metric(values, "pct_changed"), percent=False),
            f"{top} ({100 * labels[top]:.0f}%)" if top else "-",
            _fmt(_metric(values, "unjudged"), percent=False),
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


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


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command line of the quickstart."""
    parser = argparse.ArgumentParser(
        prog="python -m uta_tasks.quickstart",
        description="Run the user-turn probe with SmolLM2-135M-Instruct through lm_eval, on the CPU.",
    )
    parser.add_argument("--tasks", default=DEFAULT_TASKS, help="comma-separated uta tasks (default: %(default)s)")
    parser.add_argument("--limit", type=int, default=10, help="documents per task (default: %(default)s)")
    parser.add_argument("--output-path", type=Path, default=Path("out/quickstart"),
                        help="lm-eval --output_path; results, samples and the judge log go here (default: %(default)s)")
    parser.add_argument("--backend", choices=("vllm", "hf"), default="vllm", help="lm-eval --model (default: %(default)s)")
    parser.add_argument("--model-dir", type=Path, default=None,
                        help="Hugging Face model directory (default: the embedded SmolLM2, prepared if missing)")
    parser.add_argument("--judge", choices=("auto", "local", "openai", "none"), default="auto",
                        help="auto: OpenAI when OPENAI_API_KEY is set, else local (default: %(default)s)")
    parser.add_argument("--judge-base-url", default=None, help="an OpenAI-compatible judge endpoint to use instead")
    parser.add_argument("--judge-model", default=None,
                        help=f"judge model name (default: {OPENAI_JUDGE_MODEL} for OpenAI; required with --judge-base-url)")
    parser.add_argument("--max-gen-toks", type=int, default=256, help="assistant turn token limit (default: %(default)s)")
    parser.add_argument("--user-max-gen-toks", type=int, default=96, help="user turn token limit (default: %(default)s)")
    parser.add_argument("--temperature", type=float, default=None, help="sampling temperature (default: the tasks' 0)")
    parser.add_argument("--max-model-len", type=int, default=2048, help="vLLM context length (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=8, help="batch size for --backend hf (default: %(default)s)")
    parser.add_argument("--unverifiable", choices=("drop", "error"), default="drop",
                        help="IFBench/IFEval documents whose checks lack NLTK data here: drop them (reported "
                        "by lm_eval's log) or fail (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1234, help="vLLM seed (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.limit < 1:
        parser.error("--limit must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the quickstart; returns the process exit code."""
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="[quickstart] %(message)s", stream=sys.stderr)
    # SIGINT too: a shell without job control starts background commands with SIGINT
    # ignored, and the quickstart must still clean up when interrupted.
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), _raise_interrupt)
    started = time.monotonic()
    try:
        return _run(args, started)
    except KeyboardInterrupt as exc:
        log.error("interrupted (%s) after %s; every process the quickstart started is stopped",
                  exc or "Ctrl-C", _elapsed(started))
        return 130
    except QuickstartError as exc:
        log.error("%s", exc)
        return 2


def _run(args: argparse.Namespace, started: float) -> int:
    judge = choose_judge(args, os.environ)
    from uta_tasks.embedded import smollm2

    if args.model_dir is None:
        log.info("step 1/3: preparing SmolLM2-135M-Instruct in %s (about 30 s the first time)", smollm2.default_dir())
        try:
            model_dir = smollm2.prepare()
        except smollm2.EmbeddedModelError as exc:
            raise QuickstartError(str(exc)) from None
    else:
        model_dir = args.model_dir
        log.info("step 1/3: using the model in %s", model_dir)
    args.output_path.mkdir(parents=True, exist_ok=True)
    log.info("step 2/3: judge: %s", judge.kind)
    with judge_endpoint(judge, args.output_path) as judge:
        command = lm_eval_command(args, model_dir, judge)
        log.info("step 3/3: running lm_eval (vLLM engine start ~20 s, then generation and judging):\n  %s",
                 shlex.join(command))
        run_started = time.time()
        code = run_child(command, child_env(os.environ), "lm_eval")
        if code != 0:
            log.error("lm_eval failed with exit code %d after %s; its output above says why", code, _elapsed(started))
            return code
    results_path = find_results(args.output_path, run_started)
    if results_path is None:
        raise QuickstartError(f"lm_eval finished but wrote no results_*.json under {args.output_path}")
    results = json.loads(results_path.read_text())
    print()
    print(summary_table(results))
    print()
    print(judge.describe())
    print(f"Results: {results_path}")
    print(f"Samples (q, a, a', u and each verdict): {results_path.parent}/samples_*.jsonl")
    log.info("done in %s", _elapsed(started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
