"""``python -m uta_tasks.apps.quickstart``: the user-turn probe end to end on this machine.

1. prepares the embedded SmolLM2-135M-Instruct model (once; later runs reuse it);
2. picks the judge: ``--judge_base_url`` if given, else the OpenAI API when
   ``OPENAI_API_KEY`` is set (the default ``judge_model``, the paper's judge), else the same 135M model on its own
   ``vllm serve`` on 127.0.0.1 (llama-server without vLLM), which checks the plumbing and
   measures nothing; that server starts beside lm_eval, whose check before generation
   waits for it (``judge_start_wait``);
3. runs the real ``lm_eval --model vllm ... --tasks uta_ifbench,uta_ifbench_trunc,
   uta_ifbench_question`` with small generation limits, so it fits a 2-core CPU;
4. prints lm-eval's results table, a short summary (verdicts whose label and genuine
   decision contradict each other are counted, and no genuine rate is built on them),
   which judge produced the verdicts, and the time of every phase.

Every process it starts (lm_eval with its vLLM engine, the judge server) is stopped when
it ends, fails, or is interrupted (Ctrl-C, SIGTERM, SIGHUP).

Files: :mod:`.judge_choice` (which judge, and its server), :mod:`.command` (the lm_eval
command line), :mod:`.summary` and :mod:`.verdict_checks` (the table), :mod:`.phases`
(times), :mod:`.cli` (the steps); process supervision is :mod:`uta_tasks.servers.processes`, the
judge's vLLM server :mod:`uta_tasks.servers.vllm_server`.
"""

from __future__ import annotations

from uta_tasks.servers.processes import run_child, stop_group

from .cli import main, parse_args
from .command import DEFAULT_TASKS, child_env, lm_eval_command, model_args, task_metadata
from .errors import QuickstartError
from .judge_choice import LOCAL_JUDGE_SETTINGS, Judge, JudgeService, choose_judge, judge_endpoint, local_judge_settings
from .summary import find_results, summary_table

__all__ = [
    "DEFAULT_TASKS", "LOCAL_JUDGE_SETTINGS", "Judge", "JudgeService", "QuickstartError", "child_env",
    "choose_judge", "find_results", "judge_endpoint", "lm_eval_command", "local_judge_settings", "main",
    "model_args", "parse_args",
    "run_child", "stop_group", "summary_table", "task_metadata",
]
