"""Label sources from saved samples, verdict JSONL and annotation exports; the command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from saved_runs import write_run

from uta_tasks.apps.agreement import load_sources
from uta_tasks.apps.agreement.cli import main
from uta_tasks.apps.annotate import AnnotationDB, draw_packet
from uta_tasks.apps.annotate.cli import export
from uta_tasks.judge import LABELS
from uta_tasks.runs.sample_items import sample_items


def _flip(label: str, genuine: bool) -> tuple[str, bool]:
    return ("previous_turn_restate", False) if genuine else ("plausible_followup", True)


@pytest.fixture
def world(tmp_path: Path, judge_meta):
    runs = tmp_path / "runs"
    write_run(runs, "org/model-a", {"uta_gsm8k": 10, "uta_gsm8k_trunc": 6}, judge_meta())
    entries = sample_items([runs])
    judge = {}
    for entry in entries:
        assert entry.verdict is not None
        judge[entry.item_id] = (entry.verdict.label, entry.verdict.genuine)
    ids = sorted(judge)
    flipped = set(ids[::4])
    lines = []
    for item_id in ids:
        label, genuine = _flip(*judge[item_id]) if item_id in flipped else judge[item_id]
        lines.append({"item_id": item_id, "status": "judged", "label": label, "genuine": genuine, "judge_model": "b"})
    lines.append({"item_id": "f" * 64, "status": "unjudged", "label": None, "genuine": None, "reason": "timeout"})
    verdicts = tmp_path / "judge-b.jsonl"
    verdicts.write_text("".join(json.dumps(line) + "\n" for line in lines))
    db_path = tmp_path / "ann.sqlite"
    with AnnotationDB(db_path) as db:
        db.create_packet(draw_packet(entries, n=8, seed=0), {"seed": 0})
        for position, item_id in enumerate(db.order("alice")):
            label, genuine = judge[item_id] if position % 4 else _flip(*judge[item_id])
            db.answer("alice", position, {"label": label, "genuine": genuine})
        for position, item_id in enumerate(db.order("bob")[:5]):
            db.answer("bob", position, {"label": judge[item_id][0], "genuine": judge[item_id][1]})
    human = tmp_path / "human.jsonl"
    export(db_path, human)
    return runs, verdicts, human, judge, flipped


def test_sources_from_samples_verdicts_and_annotations(world) -> None:
    runs, verdicts, human, judge, _ = world
    (mini,) = load_sources(f"mini={runs}")
    assert mini.name == "mini" and mini.answers == judge and mini.rater.startswith("fault-judge")
    (default_name,) = load_sources(str(runs))
    assert default_name.name == "fault-judge"
    (b,) = load_sources(str(verdicts))
    assert b.name == "judge-b" and b.skipped == 1 and len(b.answers) == len(judge)
    alice, bob = load_sources(f"human={human}")
    assert (alice.name, len(alice.answers), bob.name, len(bob.answers)) == ("human:alice", 8, "human:bob", 5)


def test_command_prints_the_table_and_writes_json(world, tmp_path: Path, capsys) -> None:
    runs, verdicts, human, judge, flipped = world
    out = tmp_path / "agreement.json"
    code = main([f"mini={runs}", f"nano={verdicts}", f"human={human}", "--reference", "mini",
                 "--replicates", "200", "--json", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "Genuine follow-up" in text and "Primary label" in text and "Cohen's kappa" in text
    for row in ("mini vs nano", "mini vs human:alice", "mini vs human:bob"):
        assert row in text
    assert "Confusion, mini (rows) vs nano (columns), primary label:" in text
    data = json.loads(out.read_text())
    rows = {(r["a"], r["b"]): r for r in data["comparisons"]}
    assert set(rows) == {("mini", "nano"), ("mini", "human:alice"), ("mini", "human:bob")}
    nano = rows[("mini", "nano")]
    n = len(judge)
    assert nano["n"] == n and nano["genuine"]["agreement"] == pytest.approx(100 * (n - len(flipped)) / n)
    assert sum(map(sum, nano["label"]["confusion"])) == n and nano["label"]["categories"] == list(LABELS)
    alice = rows[("mini", "human:alice")]
    assert alice["n"] == 8 and alice["genuine"]["agreement"] == pytest.approx(75.0)
    bob = rows[("mini", "human:bob")]
    assert bob["n"] == 5 and bob["genuine"]["agreement"] == 100.0 and bob["label"]["agreement"] == 100.0
    assert data["bootstrap"] == {"replicates": 200, "seed": 0, "level": 0.95, "method": "percentile"}
    assert [s["name"] for s in data["sources"]] == ["mini", "nano", "human:alice", "human:bob"]


def test_sources_without_common_items_exit_1(world, tmp_path: Path, capsys) -> None:
    runs, *_ = world
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"item_id": "0" * 64, "label": "other", "genuine": False}) + "\n")
    assert main([str(runs), str(other), "--replicates", "0"]) == 1
    assert "no common items" in capsys.readouterr().out


def test_mixed_raters_and_bad_lines_are_errors(world, tmp_path: Path, judge_meta, capsys) -> None:
    runs, verdicts, *_ = world
    conflict = tmp_path / "conflict.jsonl"
    first = json.loads(verdicts.read_text().splitlines()[0])
    conflict.write_text(json.dumps(first) + "\n" + json.dumps({**first, "genuine": not first["genuine"]}) + "\n")
    with pytest.raises(ValueError, match="a source must hold one rater"):
        load_sources(str(conflict))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**first, "label": "genuine_followup"}) + "\n")
    with pytest.raises(ValueError, match="not one of"):
        load_sources(str(bad))
    write_run(runs, "org/model-z", {"uta_gsm8k": 2}, judge_meta(judge_prompt=str(_prompt_copy(tmp_path))))
    with pytest.raises(ValueError, match="several judges"):
        load_sources(str(runs))
    assert main([str(verdicts)]) == 2  # a bad input: 2 (1 is "no pair overlaps")
    assert "need two label sources" in capsys.readouterr().err


def _prompt_copy(tmp_path: Path) -> Path:
    """A second prompt version (same texts), so the folder holds two judges."""
    import shutil

    from uta_tasks.judge.prompt import TEMPLATES_DIR

    target = tmp_path / "followupeval-copy"
    shutil.copytree(TEMPLATES_DIR / "followupeval-v1", target)
    return target
