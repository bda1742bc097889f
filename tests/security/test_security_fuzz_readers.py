"""Every command reads any run folder without crashing: a judged saved run is damaged in
seeded random ways (truncated files, nesting 100,000 levels deep, wrong types, huge
numbers, invalid UTF-8) and fed to uta-summary, uta-gate, uta-report, uta-annotate's
loading and uta-rejudge's reading, each called in-process. Each ends with 0, with 2 and a
message (uta-gate's JUnit file then holds one error case naming the cause), or, for
uta-gate only, 1 with a failed rule in its JUnit file: never an uncaught exception."""

from __future__ import annotations

import json
import random
import shutil
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hostile_run import scored_run

from uta_tasks.apps.annotate.cli import prepare_packet
from uta_tasks.apps.gate.cli import main as gate_main
from uta_tasks.apps.rejudge.cli import main as rejudge_main
from uta_tasks.apps.report.cli import main as report_main
from uta_tasks.apps.summary import main as summary_main

SEED = 36
KINDS = ("truncate", "nest_file", "nest_line", "nest_record", "retype", "retype_record", "huge", "bytes", "empty")
CASES = 6 * len(KINDS)
DEEP = 100_000


def _deep() -> Any:
    """A value nested far beyond any recursion limit, built without recursion."""
    value: Any = []
    for _ in range(DEEP):
        value = [value]
    return value


def _deep_text() -> str:
    return "[" * DEEP + "]" * DEEP


def _odd_value(rng: random.Random) -> Any:
    return rng.choice([None, True, -1, 10**4000, 1e308, "", "x" * 5, [], {}, [1, "a", None], {"k": [None]}])


def _retype(rng: random.Random, value: Any) -> Any:
    """A copy of ``value`` with one node somewhere replaced by a value of another type."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(list(value))
        return {**value, key: _retype(rng, value[key])}
    if isinstance(value, list) and value and rng.random() < 0.7:
        index = rng.randrange(len(value))
        return [*value[:index], _retype(rng, value[index]), *value[index + 1:]]
    return _odd_value(rng)


def _dumps(value: Any) -> str:
    """JSON text; integers beyond Python's digit limit are written digit by digit."""
    return json.dumps(value, default=str).replace(json.dumps(str(10**4000)), "9" * 5000) if _has_huge(value) \
        else json.dumps(value)


def _has_huge(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, int) and not isinstance(item, bool) and abs(item) > 10**100:
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _damage(folder: Path, kind: str, rng: random.Random) -> str:
    """Damage one file of the run in the way ``kind`` names (where and how: seeded); returns what was done."""
    files = sorted(folder.glob("*.json*"))
    target = rng.choice([f for f in files if f.suffix == ".json"] if kind == "nest_file" else files)
    data = target.read_bytes()
    if kind == "truncate":
        target.write_bytes(data[:rng.randrange(len(data))])
    elif kind == "empty":
        target.write_bytes(b"")
    elif kind == "bytes":
        cut = rng.randrange(len(data))
        target.write_bytes(data[:cut] + rng.choice([b"\xff\xfe", b"\xc3(", b"\xed\xa0\x80", b"\x00"]) + data[cut:])
    elif kind == "huge":
        text = data.decode()
        digits = rng.choice(["9" * 5000, "1e99999", "-1e-99999", "1" + "0" * 400])
        text = text.replace(": 0", f": {digits}", 1).replace(":0", f":{digits}", 1).replace("[0", f"[{digits}", 1)
        target.write_text(text)
    elif target.suffix == ".json":
        value = json.loads(data)
        value = {"nested": _deep()} if kind == "nest_file" else _retype(rng, value)
        target.write_text(_dumps(value) if kind != "nest_file" else '{"results": ' + _deep_text() + "}")
    else:
        lines = data.decode().splitlines()
        index = rng.randrange(len(lines))
        row = json.loads(lines[index])
        if kind in ("nest_line", "nest_file"):
            lines[index] = '{"doc_id": 0, "doc": ' + _deep_text() + "}"
        elif kind == "nest_record":
            row["resps"] = row["filtered_resps"] = [[_deep_text()]]
            lines[index] = json.dumps(row)
        elif kind == "retype_record":
            record = json.loads(row["filtered_resps"][0][0])
            row["resps"] = row["filtered_resps"] = [[json.dumps(_retype(rng, record), default=str)]]
            lines[index] = json.dumps(row)
        else:
            lines[index] = _dumps(_retype(rng, row))
        target.write_text("\n".join(lines) + "\n")
    return f"{kind} {target.name}"


def _gate(runs: Path, out: Path) -> int:
    rules = out / "rules.yaml"
    rules.write_text(yaml.safe_dump({"settings": {"min_judged": 1}, "rules": ["uta_gsm8k: genuine_followup >= 0.0"]}))
    junit = out / "gate.xml"
    code = gate_main([str(runs), "--rules", str(rules), "--junit", str(junit)])
    cases = ET.parse(junit).getroot()  # written whatever the outcome
    kinds = {child.tag for case in cases.iter("testcase") for child in case}
    if code == 2:
        assert "error" in kinds
    if code == 1:
        assert "failure" in kinds
    return code


def _annotate_loading(runs: Path, out: Path) -> int:
    """uta-annotate's loading (its ``main`` then serves until Ctrl-C): the packet is drawn, or
    the error ``main`` reports with exit 2 is raised."""
    try:
        prepare_packet(out / "ann.sqlite", [str(runs)], 4, 0, "proportional", ["verdict"])
    except (ValueError, OSError) as exc:
        print(f"uta-annotate: {exc}", file=sys.stderr)
        return 2
    return 0


def _commands(judge_meta: Callable[..., dict[str, Any]]) -> dict[str, Callable[[Path, Path], int]]:
    return {
        "uta-summary": lambda runs, out: summary_main([str(runs)]),
        "uta-gate": _gate,
        "uta-report": lambda runs, out: report_main([str(runs), "--output_path", str(out / "report")]),
        "uta-annotate": _annotate_loading,
        "uta-rejudge": lambda runs, out: rejudge_main(
            [str(runs), "--metadata", json.dumps(judge_meta()), "--output_path", str(out / "rejudged"),
             "--bootstrap_iters", "10"]),
    }


def _exit_code(command: Callable[[Path, Path], int], runs: Path, out: Path) -> int:
    try:
        return command(runs, out)
    except SystemExit as exc:  # argparse and the commands' own exits
        return exc.code if isinstance(exc.code, int) else 2


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory, judge_meta) -> Path:
    runs = tmp_path_factory.mktemp("clean") / "runs"
    scored_run(runs, judge_meta(), {"uta_gsm8k": 4, "uta_gsm8k_trunc": 3})
    return runs


@pytest.mark.parametrize("case", range(CASES))
def test_a_damaged_run_folder_ends_every_command_with_0_or_2_and_a_message(
        case: int, clean_run: Path, tmp_path: Path, judge_meta, capsys, caplog) -> None:
    rng = random.Random(SEED * 1000 + case)
    runs = tmp_path / "runs"
    shutil.copytree(clean_run, runs)
    done = _damage(next(runs.iterdir()), KINDS[case % len(KINDS)], rng)
    for name, command in _commands(judge_meta).items():
        out = tmp_path / name
        out.mkdir()
        code = _exit_code(command, runs, out)
        captured = capsys.readouterr()
        said = captured.err + captured.out + "".join(r.getMessage() for r in caplog.records if r.levelname == "ERROR")
        caplog.clear()
        assert code in ((0, 1, 2) if name == "uta-gate" else (0, 2)), (done, name, code, said[-2000:])
        if code == 2:
            assert said.strip(), (done, name, "exit 2 without a message")
