"""A run read in one streaming pass gives what a reader of every doc gives: the same summary,
the same units behind every interval (the gate's paired bootstrap), the same report page and
gate verdicts, whatever order the samples file lists its docs in; and it keeps no doc but the
examples asked for."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
import yaml
from run_builder import Doc, RunSpec, Turn, write_run

from uta_tasks.apps.gate.cli import main as gate_main
from uta_tasks.apps.report.api import build_report
from uta_tasks.runs import EstimateSettings, build_summary, load_run
from uta_tasks.runs.observations import Observations

SETTINGS = EstimateSettings(iterations=200)
N = 60


def _docs(offset: int) -> list[Doc]:
    out = []
    for i in range(N):
        genuine = None if (i + offset) % 7 == 0 else (i + offset) % 3 != 0
        turns = [Turn(genuine, ref=i % 5 == 0, changed=i % 4 != 0), Turn(i % 2 == 0, ref=None)]
        out.append(Doc(turns, correct=i % 3 == 0))
    return out


def _folder(root: Path, name: str = "run", offset: int = 0) -> Path:
    spec = RunSpec({"uta_gsm8k": _docs(offset), "uta_gsm8k_trunc": _docs(offset + 1),
                    "uta_gsm8k_question": _docs(offset + 2)},
                   groups={"uta_gsm8k_all": ["uta_gsm8k", "uta_gsm8k_trunc", "uta_gsm8k_question"]})
    return write_run(root / name, spec).parent


def _shuffled(folder: Path, out: Path, duplicate: bool = False) -> Path:
    """A copy whose samples files list the docs in another order (as a data-parallel lm-eval
    run writes them), optionally with one doc logged twice."""
    shutil.copytree(folder.parent, out)
    copy = out / folder.name
    rng = random.Random(7)
    for path in copy.glob("samples_*.jsonl"):
        lines = path.read_text().splitlines()
        rng.shuffle(lines)
        if duplicate:
            lines.insert(len(lines) // 2, lines[3])
        path.write_text("\n".join(lines) + "\n")
    return copy


def _unjudged_headline(folder: Path) -> Path:
    """``uta_gsm8k`` judged by no one (``judge: none``), its results file holding only the
    accuracy: its metric set is known only once every record is read, and every other
    metric comes from the samples."""
    path = next(folder.glob("samples_uta_gsm8k_2*.jsonl"))
    lines = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        records = [json.loads(r) for r in row["filtered_resps"][0]]
        for record in records:
            record["verdict"] = record["verdict_ref"] = None
        row["filtered_resps"] = [[json.dumps(r) for r in records]]
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n")
    results_path = next(folder.glob("results_*.json"))
    results = json.loads(results_path.read_text())
    row = results["results"]["uta_gsm8k"]
    results["results"]["uta_gsm8k"] = {k: v for k, v in row.items() if "," not in k or k.startswith("exact_match")}
    results_path.write_text(json.dumps(results))
    return folder


def _observations(folder: Path, all_docs: bool) -> dict[str, list]:
    run = load_run(folder, all_docs=all_docs)
    out = {}
    for name, task in run.tasks.items():
        assert isinstance(task.observations, Observations)
        for metric in task.observations.columns:
            out[f"{name} {metric}"] = list(task.observations.units(metric).items())
    return out


@pytest.mark.parametrize("order", ["file order", "shuffled", "not judged, headline"])
def test_streaming_pass_gives_the_summary_and_units_of_every_doc(tmp_path, order):
    folder = _folder(tmp_path)
    if order.startswith("shuffled"):
        folder = _shuffled(folder, tmp_path / "copy")
    if order.startswith("not judged"):
        folder = _unjudged_headline(folder)
    streamed, every = load_run(folder), load_run(folder, all_docs=True)
    summary = build_summary(streamed, SETTINGS)
    assert summary == build_summary(every, SETTINGS)
    if order.startswith("not judged"):  # from the samples: the metrics of an unjudged task, no judge count
        assert "answer_incomplete" in summary["tasks"]["uta_gsm8k"]["metrics"]
        assert "n_judged" not in summary["tasks"]["uta_gsm8k"]["metrics"]
    units = _observations(folder, all_docs=False)
    assert units == _observations(folder, all_docs=True)  # same units, same order
    assert units["uta_gsm8k_trunc genuine_followup_base"]


@pytest.mark.parametrize("all_docs", [False, True])
def test_a_doc_logged_twice_is_refused_naming_both_lines(tmp_path, all_docs):
    """Never merged into one silently (nor counted twice): both readers refuse the file."""
    folder = _shuffled(_folder(tmp_path), tmp_path / "copy", duplicate=True)
    with pytest.raises(ValueError, match=r"samples_uta_gsm8k.*\.jsonl:\d+: doc_id \d+ was logged before, on line 4"):
        load_run(folder, all_docs=all_docs)


def test_streaming_keeps_only_the_examples_asked_for(tmp_path):
    folder = _shuffled(_folder(tmp_path), tmp_path / "copy")
    streamed, every = load_run(folder, examples=5), load_run(folder, all_docs=True)
    for name, task in streamed.tasks.items():
        with pytest.raises(RuntimeError, match="all_docs=True"):
            _ = task.docs
        docs = every.tasks[name].docs
        assert docs is not None and task.facts is not None and task.facts.docs == len(docs) == N
        assert [d.doc_id for d in task.examples] == [0, 1, 2, 3, 4]
        assert [d.records for d in task.examples] == [d.records for d in docs[:5]]
    assert load_run(folder).tasks["uta_gsm8k"].examples == []


def _gate(folder: Path, baseline: Path, rules: Path, out: Path) -> tuple[int, dict]:
    code = gate_main([str(folder), "--rules", str(rules), "--baseline", str(baseline), "--json", str(out)])
    data = json.loads(out.read_text())
    for key in ("candidate", "baseline"):
        data.pop(key, None)
    return code, data


def test_report_and_gate_do_not_depend_on_the_order_of_the_docs(tmp_path):
    folder = _folder(tmp_path)
    shuffled = _shuffled(folder, tmp_path / "copy")
    baseline = _folder(tmp_path, "base", offset=2)
    rules = tmp_path / "gate.yaml"
    rules.write_text(yaml.safe_dump({"settings": {"min_judged": 10, "iterations": 200}, "rules": [
        "uta_gsm8k: accuracy >= 0.2",
        {"task": "uta_gsm8k_trunc", "metric": "genuine_followup", "max_drop": 0.3},
        {"task": "uta_gsm8k_all", "metric": "genuine_followup", "max_drop": 0.3},
    ]}))
    gates = [_gate(f, baseline, rules, tmp_path / f"gate{i}.json") for i, f in enumerate((folder, shuffled))]
    assert gates[0] == gates[1]
    assert [r["method"] for r in gates[0][1]["rules"]][1:] == ["paired_bootstrap"] * 2
    pages = [build_report([f], tmp_path / f"report{i}", settings=SETTINGS, max_samples=4)
             for i, f in enumerate((folder, shuffled))]
    first, second = (p.html.read_text() for p in pages)
    assert first == second
    assert "doc_id" in first and (pages[0].markdown.read_text() == pages[1].markdown.read_text())
