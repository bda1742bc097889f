"""No text makes a page larger than its bound: a run whose user turn is 50 MB gives a report
and an annotation packet within MAX_SHOWN_CHARS of an ordinary run's, each cut text with a
visible note, while the full text stays in the samples."""

from __future__ import annotations

import json
from pathlib import Path

from hostile_run import scored_run

from uta_tasks.apps.annotate import AnnotationDB
from uta_tasks.apps.annotate.cli import prepare_packet
from uta_tasks.apps.report.cli import main as report_main
from uta_tasks.templates.escape import MAX_SHOWN_CHARS

HUGE = 50 * 2**20


def _with_huge_turn(folder: Path) -> str:
    """Replace the first logged user turn of the run with a 50 MB one; returns it."""
    (path,) = folder.glob("samples_*.jsonl")
    lines = path.read_text().splitlines()
    row = json.loads(lines[0])
    record = json.loads(row["filtered_resps"][0][0])
    record["u"] = "follow-up? " + "x" * HUGE
    row["resps"] = row["filtered_resps"] = [[json.dumps(record)]]
    lines[0] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n")
    return record["u"]


def test_a_50_mb_user_turn_keeps_the_report_and_the_packet_within_their_bound(tmp_path: Path, judge_meta) -> None:
    ordinary, huge = tmp_path / "ordinary", tmp_path / "huge"
    scored_run(ordinary, judge_meta(), {"uta_gsm8k": 4})
    turn = _with_huge_turn(scored_run(huge, judge_meta(), {"uta_gsm8k": 4}))
    sizes = {}
    for runs in (ordinary, huge):
        assert report_main([str(runs), "--output_path", str(runs / "report")]) == 0
        sizes[runs.name] = (runs / "report" / "report.html").stat().st_size
    html = (huge / "report" / "report.html").read_text(encoding="utf-8")
    # the turn is shown twice (the turn, and inside the judge prompt shown as sent), each cut
    assert sizes["huge"] < sizes["ordinary"] + 2 * (MAX_SHOWN_CHARS + 200)
    assert f"{len(turn) - MAX_SHOWN_CHARS:,} more characters cut here" in html
    assert "ordinary" not in html and sizes["ordinary"] > 50_000  # the ordinary report shows its samples too
    assert any(turn in path.read_text() for path in (huge / "org__model-a").glob("samples_*"))  # the full text stays

    db_path = tmp_path / "ann.sqlite"
    assert prepare_packet(db_path, [str(huge)], 4, 0, "proportional", ["verdict"]) == 4
    with AnnotationDB(db_path) as db:
        shown = [db.shown("alice", position).user_turn for position in range(db.size())]
    (cut,) = [text for text in shown if text.startswith("follow-up? xxx")]
    assert len(cut) < MAX_SHOWN_CHARS + 200 and "more characters cut here" in cut
