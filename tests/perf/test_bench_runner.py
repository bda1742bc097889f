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
