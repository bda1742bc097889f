"""make bench's table (perf/bench.py): which rows miss their goal, what the last line names,
and which scripts take part, on synthetic rows and scripts (no timing)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "perf" / "bench.py"
_SPEC = importlib.util.spec_from_file_location("uta_perf_bench", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
bench = importlib.util.module_from_spec(_SPEC)
sys.modules["uta_perf_bench"] = bench  # dataclasses look their module up there
_SPEC.loader.exec_module(bench)


def rows(*raw: dict) -> list:
    return [bench.row_from(r, "demo") for r in raw]


def test_a_ratio_on_the_wrong_side_of_its_goal_is_named_on_the_last_line() -> None:
    table = bench.table(rows(
        {"name": "hook / raw", "ratio": 1.25, "goal": 1.1, "direction": "at most", "note": "b 2 s, h 2.5 s"},
        {"name": "judge / capacity", "ratio": 0.93, "goal": 0.9, "direction": "at least"},
        {"name": "judge 2400 / capacity", "ratio": 0.85, "goal": 0.9, "direction": "at least"},
        {"name": "lost / items", "ratio": 0.0, "goal": 0.0, "direction": "at most"},
    ))
    assert table[-1] == ("goals missed: hook / raw (1.250, goal <= 1.1); "
                         "judge 2400 / capacity (0.850, goal >= 0.9)")
    met = {line.split(" | ")[0].lstrip("| "): line.split(" | ")[3] for line in table[2:-2]}
    assert met == {"hook / raw": "no", "judge / capacity": "yes", "judge 2400 / capacity": "no", "lost / items": "yes"}


def test_goal_met_exactly_is_met_and_nothing_missed_says_none() -> None:
    table = bench.table(rows({"name": "x", "ratio": 0.9, "goal": 0.9, "direction": "at least"},
                             {"name": "y", "ratio": 1.2, "goal": 1.2, "direction": "at most"}))
    assert table[-1] == "goals missed: none"


def test_not_measured_rows_say_why_and_never_count_as_met_or_missed() -> None:
    unmeasured = bench.not_measured("judge_schema_speed", "perf/judge_schema_speed.py does not exist yet")
    table = bench.table([*rows({"name": "x", "ratio": 0.5, "goal": 0.9, "direction": "at least"}), unmeasured])
    line = next(line for line in table if "judge_schema_speed" in line)
    assert "| not measured | - | - |" in line and "does not exist yet" in line
    assert table[-1] == (f"goals missed: x (0.500, goal >= 0.9) (not measured: {bench.EXPECTED['judge_schema_speed']})")


@pytest.mark.parametrize(("raw", "message"), [
    ({"ratio": 1.0}, "non-empty 'name'"),
    ({"name": "x", "ratio": 1.0, "direction": "lower"}, "direction must be one of"),
    ({"name": "x", "ratio": float("nan")}, "finite number"),
    ({"name": "x", "ratio": True}, "finite number"),
    ({"name": "x", "ratio": None}, "must say why"),
])
def test_a_row_outside_the_convention_is_refused_naming_the_script(raw: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        bench.row_from(raw, "demo")
    assert "perf/demo.py bench()" in str(caught.value)


def test_scripts_take_part_by_defining_bench_and_are_not_imported(tmp_path: Path) -> None:
    (tmp_path / "with_rows.py").write_text("import no_such_module\n\ndef bench():\n    return []\n")
    (tmp_path / "plain.py").write_text("def main():\n    pass\n")
    (tmp_path / "_helper.py").write_text("def bench():\n    return []\n")
    assert bench.discover(tmp_path) == (["with_rows"], ["plain"])


def test_the_repository_benchmarks_follow_the_convention() -> None:
    with_bench, _without = bench.discover()
    assert {"judge_throughput", "judge_schema_speed", "two_pass_overhead", "tools_scale"} <= set(with_bench)


# ---- time limits: a tiny fake benchmark that overruns, never a real one ----

_QUICK = 'def bench():\n    return [{"name": "quick", "ratio": 0.5, "goal": 1.0, "direction": "at most"}]\n'
_SLOW = ('import time\n\ndef bench():\n    print("started", flush=True)\n    time.sleep(3600)\n'
         '    return [{"name": "slow", "ratio": 0.5}]\n')
# Ignores SIGTERM: only SIGKILL to its process group, after the grace, stops it.
_STUBBORN = ('import signal, time\n\ndef bench():\n    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n'
             '    time.sleep(3600)\n')


def _fakes(folder: Path, **scripts: str) -> Path:
    for name, text in scripts.items():
        (folder / f"{name}.py").write_text(text)
    return folder


def test_a_benchmark_over_its_limit_gets_the_timed_out_row_and_the_others_still_run(tmp_path: Path) -> None:
    folder = _fakes(tmp_path, quick=_QUICK, slow=_SLOW)
    found = bench.run_all(["slow", "quick"], ["quick", "slow"], folder, limits={"slow": 1})
    assert [(row.source, row.ratio) for row in found] == [("slow", None), ("quick", 0.5)]
    assert found[0].note.startswith("not measured: timed out after 1 s")


def test_a_child_that_ignores_sigterm_is_killed_and_reported(tmp_path: Path) -> None:
    folder = _fakes(tmp_path, stubborn=_STUBBORN)
    (row,) = bench.run_one("stubborn", 1, folder)
    assert row.ratio is None and "timed out after 1 s" in row.note


def test_a_script_the_budget_no_longer_reaches_is_not_started(tmp_path: Path) -> None:
    folder = _fakes(tmp_path, quick=_QUICK, slow=_SLOW)
    found = bench.run_all(["slow", "quick"], ["quick", "slow"], folder, limits={"slow": 5}, total=2)
    assert found[0].note.startswith("not measured: timed out after 1 s")  # cut to what is left of the budget
    assert found[1].ratio is None and "not started" in found[1].note


def test_make_bench_prints_its_table_when_a_benchmark_overruns(tmp_path: Path) -> None:
    import subprocess

    folder = _fakes(tmp_path, quick=_QUICK, slow=_SLOW)
    done = subprocess.run([sys.executable, str(_PATH), "--folder", str(folder), "--limit", "slow=1"],
                          capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert lines[1] == "| benchmark | ratio | goal | met | script | figures |"
    rows = {line.split(" | ")[4]: line for line in lines[3:-2]}
    assert "| quick | 0.500 | <= 1 | yes |" in rows["quick"]
    assert "| not measured | - | - |" in rows["slow"] and "timed out after 1 s" in rows["slow"]
    assert lines[-1] == "goals missed: none (not measured: slow)"
    assert "[slow] started" in done.stderr  # its output is shown as it comes


def test_every_benchmark_has_a_limit_and_all_fit_the_20_minutes() -> None:
    with_bench, _without = bench.discover()
    assert set(with_bench) <= set(bench.TIME_LIMITS), "give each perf/ script with bench() a TIME_LIMITS entry"
    assert bench.TOTAL_SECONDS <= 20 * 60  # issue 55 (28 from issue 53's 1,000,000-record page)
    assert sum(bench.limit_of(name) + bench.GRACE_SECONDS for name in with_bench) <= bench.TOTAL_SECONDS


def test_ctrl_c_on_make_bench_stops_the_running_benchmark_too(tmp_path: Path) -> None:
    import contextlib
    import os
    import signal
    import subprocess
    import time

    pid_file = tmp_path / "pid"
    folder = _fakes(tmp_path, slow=(f"import os, time\n\ndef bench():\n    open({str(pid_file)!r}, 'w').write("
                                    "str(os.getpid()))\n    time.sleep(3600)\n"))
    with (tmp_path / "out").open("w") as out:  # files, not pipes: a benchmark left running would hold a pipe
        runner = subprocess.Popen([sys.executable, str(_PATH), "--folder", str(folder)], stdout=out, stderr=out)
        while not pid_file.exists() or not pid_file.read_text():  # the benchmark has started
            assert runner.poll() is None, (tmp_path / "out").read_text()
            time.sleep(0.05)
        child = int(pid_file.read_text())
        runner.send_signal(signal.SIGINT)  # what the terminal sends the runner on Ctrl-C
        runner.wait()
    try:
        with pytest.raises(ProcessLookupError):  # not left running in its own process group
            os.kill(child, 0)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)
    assert runner.returncode != 0
