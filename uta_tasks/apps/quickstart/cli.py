"""The quickstart's command line and its steps, each timed."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import shlex
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from uta_tasks.apps.flags import lm_eval_spelling
from uta_tasks.apps.judge_options import add_judge_setting
from uta_tasks.judge.redact import install_log_redaction
from uta_tasks.lm_eval_compat.logs import UTA_RENDERS_ITSELF
from uta_tasks.runs import RunFiles, load_run
from uta_tasks.servers.processes import elapsed, run_child

from .command import DEFAULT_TASKS, LM_EVAL_ENV_DEFAULTS, child_env, lm_eval_command
from .errors import QuickstartError
from .judge_choice import LOCAL_SERVERS, Judge, choose_judge, judge_endpoint
from .phases import Phases
from .summary import find_results, summary_table
from .verdict_checks import check_run, contradiction_note

log = logging.getLogger("uta_tasks.apps.quickstart")


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command line of the quickstart."""
    parser = argparse.ArgumentParser(
        prog="python -m uta_tasks.apps.quickstart",
        description="Run the user-turn probe with SmolLM2-135M-Instruct through lm_eval, on the CPU.",
    )
    parser.add_argument("--tasks", default=DEFAULT_TASKS, help="comma-separated uta tasks (default: %(default)s)")
    parser.add_argument("--limit", type=int, default=5, help="documents per task (default: %(default)s)")
    parser.add_argument("--output_path", type=Path, default=Path("out/quickstart"),
                        help="lm-eval --output_path; results, samples and the judge log go here (default: %(default)s)")
    parser.add_argument("--backend", choices=("vllm", "hf"), default="vllm", help="lm-eval --model (default: %(default)s)")
    parser.add_argument("--model-dir", type=Path, default=None,
                        help="Hugging Face model directory (default: the embedded SmolLM2, prepared if missing)")
    parser.add_argument("--judge", choices=("auto", "local", "openai", "none"), default="auto",
                        help="auto: OpenAI when OPENAI_API_KEY is set, else local (default: %(default)s)")
    parser.add_argument("--local_judge", choices=LOCAL_SERVERS, default="auto",
                        help="server of the local judge: vllm (no build; auto when vLLM is installed) or llama "
                        "(llama-server, built by scripts/build_llama_server.sh) (default: %(default)s)")
    add_judge_setting(parser, "judge_base_url", default=None, note="default: the OpenAI API or the local judge")
    add_judge_setting(parser, "judge_model", default=None,
                      note="default: {default} for OpenAI; required with --judge_base_url")
    parser.add_argument("--max_gen_toks", type=int, default=256, help="assistant turn token limit (default: %(default)s)")
    parser.add_argument("--user_max_gen_toks", type=int, default=96, help="user turn token limit (default: %(default)s)")
    parser.add_argument("--temperature", type=float, default=None, help="sampling temperature (default: the tasks' 0)")
    parser.add_argument("--max-model-len", type=int, default=2048, help="vLLM context length (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=8, help="batch size for --backend hf (default: %(default)s)")
    parser.add_argument("--unverifiable", choices=("drop", "error"), default="drop",
                        help="IFBench/IFEval documents whose checks lack NLTK data here: drop them (reported "
                        "by lm_eval's log) or fail (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1234, help="vLLM seed (default: %(default)s)")
    args = lm_eval_spelling(parser).parse_args(argv)
    if args.limit < 1:
        parser.error("--limit must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the quickstart; returns the process exit code."""
    install_log_redaction()  # no credential in any log line, the HTTP client's included
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="[quickstart] %(message)s", stream=sys.stderr)
    # SIGINT too: a shell without job control starts background commands with SIGINT
    # ignored, and the quickstart must still clean up when interrupted.
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), _raise_interrupt)
    started = time.monotonic()
    try:
        return _run(args)
    except KeyboardInterrupt as exc:
        log.error("interrupted (%s) after %s; every process the quickstart started is stopped",
                  exc or "Ctrl-C", elapsed(started))
        return 130
    except QuickstartError as exc:
        log.error("%s", exc)
        return 2


def _run(args: argparse.Namespace) -> int:
    judge = choose_judge(args, os.environ)
    phases = Phases.from_environ(os.environ)
    try:
        code, run_files, judge = _steps(args, judge, phases)
    except BaseException:
        log.info("%s", phases.line())
        raise
    if code != 0:
        log.info("%s", phases.line())
        return code
    with phases.phase("summary"):
        run = load_run(run_files, all_docs=True)  # read once: the table and the verdict checks
        checks = check_run(run)
        print()
        print(summary_table(run, checks))
        note = contradiction_note(checks)
        if note:
            print(note)
        print()
        print(judge.describe())
        print(f"Results: {run_files.results}")
        print(f"Samples (q, a, a', u and each verdict): {run_files.results.parent}/samples_*.jsonl")
    print(phases.line())  # the one total: make quickstart's setup included
    return 0


def _steps(args: argparse.Namespace, judge: Judge, phases: Phases) -> tuple[int, RunFiles, Judge]:
    """Model, judge, lm_eval: each a timed phase.

    Args:
        args: parsed command line.
        judge: the chosen judge.
        phases: where the durations go.

    Returns:
        lm_eval's exit code, its results file, and the judge as it ran (its URL known).
    """
    from uta_tasks.embedded import smollm2

    with phases.phase("model"):
        if args.model_dir is None:
            log.info("step 1/3: preparing SmolLM2-135M-Instruct in %s (a few seconds the first time)",
                     smollm2.default_dir())
            try:
                model_dir = smollm2.prepare()
            except smollm2.EmbeddedModelError as exc:
                raise QuickstartError(str(exc)) from None
        else:
            model_dir = args.model_dir
            log.info("step 1/3: using the model in %s", model_dir)
    args.output_path.mkdir(parents=True, exist_ok=True)
    log.info("step 2/3: judge: %s", judge.kind)
    with contextlib.ExitStack() as stack:
        entered = time.monotonic()
        service = stack.enter_context(judge_endpoint(judge, args.output_path, model_dir, child_env(os.environ)))
        if not service.started_beside:  # a judge starting beside lm_eval takes no time of its own
            phases.add("judge start", time.monotonic() - entered)
        judge = service.judge
        command = lm_eval_command(args, model_dir, judge)
        log.info("step 3/3: running lm_eval (vLLM engine start about 1 min, then generation and judging):\n  %s",
                 shlex.join(command))
        log.info("lm_eval may warn that the chat template is not applied: %s, so that warning does "
                 "not concern them", UTA_RENDERS_ITSELF)
        run_started = time.time()
        with phases.phase("lm_eval"):
            code = run_child(command, child_env(os.environ, LM_EVAL_ENV_DEFAULTS), "lm_eval", alongside=service.watch)
    if code != 0:
        log.error("lm_eval failed with exit code %d; its output above says why", code)
        return code, args.output_path, judge
    run_files = find_results(args.output_path, run_started)
    if run_files is None:
        raise QuickstartError(f"lm_eval finished but wrote no results_*.json under {args.output_path}")
    return 0, run_files, judge


if __name__ == "__main__":
    sys.exit(main())
