"""The quickstart's decisions, without running anything: judge choice, the lm_eval
command line, the child environment and the summary table."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from uta_tasks import include_path
from uta_tasks.apps import quickstart
from uta_tasks.runs.summary_types import RunSummary
from uta_tasks.schema import output


def _args(*argv: str):
    return quickstart.parse_args(list(argv))


def test_local_judge_without_an_api_key() -> None:
    judge = quickstart.choose_judge(_args(), {})
    assert judge.kind == "local"
    assert judge.model == "smollm2-135m-instruct"
    assert "not a measurement" in quickstart.Judge("local", judge.model, "http://127.0.0.1:1/v1").describe()


def test_openai_judge_when_the_key_is_set() -> None:
    judge = quickstart.choose_judge(_args(), {"OPENAI_API_KEY": "sk-test"})
    assert (judge.kind, judge.model) == ("openai", "gpt-5.4-mini")
    meta = judge.metadata()
    assert meta == {"judge": "openai", "judge_model": "gpt-5.4-mini"}
    assert "sk-test" not in json.dumps(meta)


def test_given_endpoint_needs_a_model_name() -> None:
    with pytest.raises(quickstart.QuickstartError, match="--judge_model"):
        quickstart.choose_judge(_args("--judge_base_url", "http://127.0.0.1:8000/v1"), {})
    judge = quickstart.choose_judge(
        _args("--judge_base_url", "http://127.0.0.1:8000/v1/", "--judge_model", "m"), {"OPENAI_API_KEY": "k"}
    )
    assert judge.metadata() == {"judge": "openai", "judge_model": "m", "judge_base_url": "http://127.0.0.1:8000/v1"}


def test_forced_openai_judge_without_key_is_an_error() -> None:
    with pytest.raises(quickstart.QuickstartError, match="OPENAI_API_KEY"):
        quickstart.choose_judge(_args("--judge", "openai"), {})


def test_vllm_runs_in_bfloat16_only_where_the_cpu_computes_it(tmp_path: Path) -> None:
    from uta_tasks.apps.quickstart.cpu_dtype import cpu_dtype, cpu_flags

    cases = {
        "flags\t\t: fpu sse2 avx avx2 fma\n": "float32",  # AVX2 only: oneDNN has no bf16 matmul
        "flags\t\t: fpu avx2 avx512f avx512_bf16\n": "bfloat16",
        "flags\t\t: fpu avx2 avx512f amx_bf16 amx_tile\n": "bfloat16",
        "Features\t: fp asimd bf16 i8mm\n": "bfloat16",  # Arm
    }
    for text, dtype in cases.items():
        path = tmp_path / "cpuinfo"
        path.write_text("processor\t: 0\n" + text)
        assert cpu_dtype(cpu_flags(path)) == dtype, text
    assert cpu_flags(tmp_path / "missing") == frozenset() and cpu_dtype(frozenset()) == "float32"
    args = _args("--limit", "1", "--output_path", str(tmp_path))
    judge = quickstart.Judge("local", "smollm2-135m-instruct", "http://127.0.0.1:9/v1", quickstart.LOCAL_JUDGE_SETTINGS)
    command = quickstart.lm_eval_command(args, Path("/models/smol"), judge, python="python")
    assert f"dtype={cpu_dtype()}," in command[command.index("--model_args") + 1]


def test_lm_eval_command_is_the_documented_one(tmp_path: Path) -> None:
    args = _args("--limit", "3", "--output_path", str(tmp_path))
    judge = quickstart.Judge("local", "smollm2-135m-instruct", "http://127.0.0.1:9/v1", quickstart.LOCAL_JUDGE_SETTINGS)
    command = quickstart.lm_eval_command(args, Path("/models/smol"), judge, python="python")
    assert command[:4] == ["python", "-m", "lm_eval", "run"]
    flag = {command[i]: command[i + 1] for i in range(4, len(command) - 1) if command[i].startswith("--")}
    assert flag["--model"] == "vllm"
    assert flag["--model_args"].startswith("pretrained=/models/smol,")
    assert flag["--include_path"] == include_path()
    assert flag["--tasks"] == "uta_ifbench,uta_ifbench_trunc,uta_ifbench_question"
    assert flag["--limit"] == "3"
    assert flag["--gen_kwargs"] == "max_gen_toks=256"
    assert flag["--output_path"] == str(tmp_path)
    assert "--log_samples" in command
    meta = json.loads(flag["--metadata"])
    assert meta["judge_base_url"] == "http://127.0.0.1:9/v1"
    assert meta["judge_model"] == "smollm2-135m-instruct"
    assert meta["user_max_gen_toks"] == 96
    assert meta["ifbench_unverifiable"] == "drop"


def test_child_env_keeps_user_values() -> None:
    env = quickstart.child_env({"VLLM_CPU_KVCACHE_SPACE": "4", "PATH": "/bin"})
    assert env["VLLM_CPU_KVCACHE_SPACE"] == "4"
    assert env["VLLM_NO_USAGE_STATS"] == "1"
    assert env["HF_HUB_OFFLINE"] == "1"
    assert env["VLLM_CPU_NUM_OF_RESERVED_CPU"] == "0"  # the model computes on every core
    assert "VLLM_ENABLE_V1_MULTIPROCESSING" not in env  # the judge's vllm serve keeps its engine process
    lm_eval = quickstart.child_env({"VLLM_ENABLE_V1_MULTIPROCESSING": "1"}, {"VLLM_ENABLE_V1_MULTIPROCESSING": "0"})
    assert lm_eval["VLLM_ENABLE_V1_MULTIPROCESSING"] == "1"  # the user's value wins over lm_eval's default


def test_summary_table_reads_lm_eval_results() -> None:
    values = {"prompt_level_strict_acc": 0.25, "genuine_followup": 0.5, "genuine_followup_base": 0.0,
              "share_changed": 0.75, "label_plausible_followup": 0.5, "label_previous_turn_restate": 0.25,
              "unjudged": 1.0}
    summary = RunSummary.from_json({
        "schema": output.SUMMARY_SCHEMA,
        "tasks": {"uta_ifbench_trunc": {"benchmark": "ifbench", "perturbation": "trunc", "n_docs": 4,
                                        "metrics": {m: {"value": v} for m, v in values.items()}}},
        "groups": {"uta_ifbench_all": {"tasks": ["uta_ifbench_trunc"], "metrics": {}}},
    })
    table = quickstart.summary_table(summary).splitlines()
    assert table[0].split()[:2] == ["task", "n"]
    row = table[2].split()
    assert row[:6] == ["uta_ifbench_trunc", "4", "25.0", "50.0", "0.0", "75.0"]
    assert "plausible_followup" in table[2]
    assert len(table) == 3  # the group row is left out


def test_stop_group_ends_a_child_and_its_children(tmp_path: Path) -> None:
    """A child that ignores SIGINT and has a grandchild: both are gone after stop_group."""
    pid_file = tmp_path / "grandchild.pid"
    code = (
        "import signal, subprocess, sys, time; signal.signal(signal.SIGINT, signal.SIG_IGN); "
        f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        f"open({str(pid_file)!r}, 'w').write(str(p.pid)); time.sleep(60)"
    )
    process = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    deadline = time.monotonic() + 20
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the child did not start its grandchild"
        time.sleep(0.1)
    grandchild = int(pid_file.read_text())
    quickstart.stop_group(process)
    assert process.poll() is not None
    assert process.returncode == -signal.SIGTERM  # ignored SIGINT, ended by the next step, not by SIGKILL
    time.sleep(0.2)
    assert not Path(f"/proc/{grandchild}").exists() or "Z" in Path(f"/proc/{grandchild}/stat").read_text().split()[2]
