"""uta-agreement on two judges' folders of the same items: the table leads with kappa,
sensitivity and specificity; --slices gives the Table 7 slices and the per-file view; and
uta-annotate draws the hard-case packet from the same two folders."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from run_builder import Doc, RunSpec, Turn, write_run  # noqa: E402

from uta_tasks.apps.agreement.cli import main  # noqa: E402
from uta_tasks.apps.annotate import AnnotationDB  # noqa: E402
from uta_tasks.apps.annotate.cli import prepare_packet  # noqa: E402
from uta_tasks.runs.sample_items import sample_items  # noqa: E402

# 20 docs of two models: nano yes/mini no 4, nano no/mini yes 2, both yes 4, both no 10.
NANO = [True] * 4 + [False] * 2 + [True] * 4 + [False] * 10
MINI = [False] * 4 + [True] * 2 + [True] * 4 + [False] * 10


@pytest.fixture
def judges(tmp_path: Path) -> tuple[Path, Path]:
    out = []
    for judge, column in (("nano", NANO), ("mini", MINI)):
        for model, first in (("org/model-a", 0), ("org/model-b", 10)):
            turns = [Doc([Turn(column[d])], u_text=f"Turn {d}?") for d in range(first, first + 10)]
            write_run(tmp_path / judge, RunSpec({"uta_gsm8k": turns}, model=model, judge_model=judge))
        out.append(tmp_path / judge)
    return out[0], out[1]


def test_table_leads_with_chance_corrected_numbers(judges, capsys) -> None:
    nano, mini = judges
    assert main([f"nano={nano}", f"mini={mini}", "--replicates", "0", "--no_confusion"]) == 0
    text = capsys.readouterr().out
    header = next(line for line in text.splitlines() if line.startswith("Comparison"))
    assert header.index("Cohen's kappa") < header.index("Sens. %") < header.index("Spec. %") < header.index(
        "Agree. (%)")


def test_slices_and_per_model_shift_from_two_judge_folders(judges, tmp_path: Path, capsys) -> None:
    nano, mini = judges
    out = tmp_path / "agreement.json"
    assert main([f"nano={nano}", f"mini={mini}", "--replicates", "0", "--slices", "--slice_size", "10",
                 "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Slices (Appendix D.1 / Table 7)" in text and "Per-file rates over 2 files" in text
    data = json.loads(out.read_text())
    row = data["comparisons"][0]
    # mini against nano as reference: nano's 8 genuine, mini agrees on 4; nano's 12 not genuine, mini agrees on 10
    assert row["sensitivity"] == pytest.approx(4 / 8) and row["specificity"] == pytest.approx(10 / 12)
    slices = {s["slice"]: s for s in data["slices"]}
    assert slices["full"]["n"] == 20 and slices["random"]["n"] == 10 and slices["hard"]["n"] == 10
    assert slices["hard"]["genuine"]["confusion"][0][1] + slices["hard"]["genuine"]["confusion"][1][0] == 5
    models = {m[0]: m for m in data["files"]["nano vs mini"]["models"]}
    # model-a: docs 0-9, nano 8/10, mini 6/10; model-b: docs 10-19, nobody genuine
    assert models["org/model-a"][1:] == [10, 0.8, 0.6, pytest.approx(-0.2)]
    assert models["org/model-b"][1:] == [10, 0.0, 0.0, 0.0]


def test_hard_case_packet_is_balanced_between_disagreements_and_agreements(judges, tmp_path: Path) -> None:
    nano, mini = judges
    db = tmp_path / "hard.sqlite"
    assert prepare_packet(db, [str(nano)], n=8, seed=0, allocation="hard", kinds=["verdict"],
                          hard_against=str(mini)) == 8
    by_id = {e.item_id: int(e.item.user_turn[len("Turn "):-1]) for e in sample_items([nano])}
    with AnnotationDB(db) as handle:
        ids = handle.order("alice")
        assert handle.meta()["hard_against"] == str(mini.resolve())
    cells = [(NANO[by_id[i]], MINI[by_id[i]]) for i in ids]
    assert sum(a != b for a, b in cells) == 4
    assert cells.count((True, True)) == 2 and cells.count((False, False)) == 2
