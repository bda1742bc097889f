"""Every value the commands read is checked before it is used. A value that makes a run
unmeasurable (``"results": null``, a wrong type for ``n-shot``, ``versions``, ``configs``, an
unknown benchmark or perturbation, a doc logged without a probe record, a ``doc_id`` logged
twice) is refused by every command with exit 2, naming the file (and the line of a samples
file); a judged verdict with a label outside the eight is read as unjudged, with a warning
naming it, so it is in no rate and the label shares still sum to 1."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from run_builder import RunSpec, docs, write_run

from uta_tasks.apps.agreement.cli import main as agreement_main
from uta_tasks.apps.gate.cli import main as gate_main
from uta_tasks.apps.rejudge.cli import main as rejudge_main
from uta_tasks.apps.report.cli import main as report_main
from uta_tasks.apps.summary import main as summary_main
from uta_tasks.schema.labels import LABELS

JUDGE = {"judge_base_url": "http://127.0.0.1:9/v1", "judge_model": "judge-x", "judge_cache": "off",
         "judge_max_retries": 0}
TASK = "uta_gsm8k"


def _results(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _lines(path: Path, change: Callable[[list[dict[str, Any]]], None]) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    change(rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _record(row: dict[str, Any], **fields: Any) -> None:
    record = json.loads(row["filtered_resps"][0][0])
    record.update(fields)
    row["filtered_resps"] = [[json.dumps(record)]]


def _set(section: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data.__setitem__(section, value)


def _meta(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data["configs"][TASK]["metadata"].__setitem__(key, value)


# fault -> (which file, the change, what the message must hold besides the file's name)
REFUSED: dict[str, tuple[str, Callable[..., None], str]] = {
    "results_null": ("results", _set("results", None), "'results' is null"),
    "n_shot_list": ("results", _set("n-shot", [0]), "'n-shot' is list"),
    "versions_list": ("results", _set("versions", ["1"]), "'versions' is list"),
    "configs_list": ("results", _set("configs", [{}]), "'configs' is list"),
    "config_of_a_task_a_string": ("results", lambda d: d["configs"].__setitem__(TASK, "x"), "configs['uta_gsm8k']"),
    "repeats_a_list": ("results", lambda d: d["configs"][TASK].__setitem__("repeats", [2]), "'repeats'"),
    "unknown_benchmark_in_metadata": ("results", _meta("uta_benchmark", "nope"), "'nope'"),
    "unknown_perturbation_in_metadata": ("results", _meta("uta_perturbation", "shout"), "'shout'"),
    "unknown_benchmark_in_a_record": ("samples", lambda rows: _record(rows[1], benchmark="nope"), ":2: "),
    "unknown_perturbation_in_a_record": ("samples", lambda rows: _record(rows[1], perturbation="shout"), ":2: "),
    "filtered_resps_empty": ("samples", lambda rows: rows[1].__setitem__("filtered_resps", [[]]), ":2: "),
    "filtered_resps_missing": ("samples", lambda rows: rows[1].__setitem__("filtered_resps", []), ":2: "),
    "duplicate_doc_id": ("samples", lambda rows: rows[2].__setitem__("doc_id", 0), ":3: doc_id 0 was logged before"),
}


def _commands(folder: Path, out: Path) -> dict[str, Callable[[], int]]:
    rules = out / "rules.yaml"
    rules.write_text(yaml.safe_dump({"settings": {"min_judged": 1}, "rules": [f"{TASK}: genuine_followup >= 0.0"]}))
    return {
        "uta-summary": lambda: summary_main([str(folder)]),
        "uta-gate": lambda: gate_main([str(folder), "--rules", str(rules), "--junit", str(out / "gate.xml")]),
        "uta-report": lambda: report_main([str(folder), "--output_path", str(out / "report")]),
        "uta-rejudge": lambda: rejudge_main([str(folder), "--metadata", json.dumps(JUDGE),
                                             "--output_path", str(out / "rejudged")]),
        "uta-agreement": lambda: agreement_main([f"a={folder}", f"b={folder}"]),
    }


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return write_run(tmp_path / "runs", RunSpec({TASK: docs([True, False, True, True])}))


@pytest.mark.parametrize("fault", list(REFUSED))
def test_a_value_no_rate_can_be_measured_on_is_refused_by_every_command(
        fault: str, run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    which, change, said = REFUSED[fault]
    target = run if which == "results" else next(run.parent.glob(f"samples_{TASK}_*.jsonl"))
    (_results if which == "results" else _lines)(target, change)
    for name, command in _commands(run.parent, tmp_path).items():
        code = command()
        captured = capsys.readouterr()
        message = captured.err + "".join(r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR)
        caplog.clear()
        assert code == 2, (fault, name, code, message[-1500:])
        assert target.name in message and said in message, (fault, name, message[-1500:])
        assert "internal error" not in message, (fault, name, message[-1500:])


def test_a_label_outside_the_eight_is_read_as_unjudged_with_a_warning(
        run: Path, caplog: pytest.LogCaptureFixture) -> None:
    samples = next(run.parent.glob(f"samples_{TASK}_*.jsonl"))

    def odd_label(rows: list[dict[str, Any]]) -> None:
        record = json.loads(rows[1]["filtered_resps"][0][0])
        record["verdict"]["label"] = "made_up_label"
        rows[1]["filtered_resps"] = [[json.dumps(record)]]

    _lines(samples, odd_label)
    caplog.set_level(logging.WARNING)
    assert summary_main([str(run.parent)]) == 0
    metrics = json.loads((run.parent / "summary.json").read_text())["tasks"][TASK]["metrics"]
    shares = [metrics[f"label_{label}"]["value"] for label in LABELS if f"label_{label}" in metrics]
    assert sum(shares) == pytest.approx(1.0)  # over the 3 judged turns, not 4
    assert metrics["genuine_followup"]["n"] == 3 and metrics["genuine_followup"]["k"] == 3
    assert metrics["unjudged_share"]["k"] == 1  # counted as unjudged
    warned = [r.getMessage() for r in caplog.records if "made_up_label" in r.getMessage()]
    assert warned and f"{samples}:2 verdict" in warned[0] and "read as unjudged" in warned[0]


def test_a_doc_without_a_record_does_not_empty_its_task(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before, ``filtered_resps: [[]]`` on the first doc made the whole task's rate null; now the
    run is refused, naming the line, rather than measured without it or without the task."""
    samples = next(run.parent.glob(f"samples_{TASK}_*.jsonl"))
    _lines(samples, lambda rows: rows[0].__setitem__("filtered_resps", [[]]))
    assert summary_main([str(run.parent)]) == 2
    assert f"{samples}:1: filtered_resps[0] is empty" in capsys.readouterr().err
