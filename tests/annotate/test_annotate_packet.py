"""The packet: seeded, stratified by task, model and judge label, deduplicated, blinded."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from saved_runs import write_run

from uta_tasks.apps.annotate import AnnotationDB, AnnotationError, draw_packet
from uta_tasks.apps.annotate.cli import export, prepare_packet
from uta_tasks.runs.sample_items import sample_items


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory, judge_meta):
    runs = tmp_path_factory.mktemp("runs")
    write_run(runs, "org/model-a", {"uta_gsm8k": 12, "uta_gsm8k_trunc": 6}, judge_meta())
    write_run(runs, "org/model-b", {"uta_gsm8k": 12}, judge_meta())
    return sample_items([runs])


def _strata(items) -> Counter:
    return Counter((it.task, it.model, it.judge_label) for it in items)


def test_same_seed_same_packet_other_seed_other_packet(pool) -> None:
    first = draw_packet(pool, n=10, seed=3)
    assert [it.item_id for it in draw_packet(list(reversed(pool)), n=10, seed=3)] == [it.item_id for it in first]
    assert {it.item_id for it in draw_packet(pool, n=10, seed=4)} != {it.item_id for it in first}
    assert len({it.item_id for it in first}) == 10


def test_proportional_allocation_follows_the_strata_sizes(pool) -> None:
    everything = draw_packet(pool, n=10_000, seed=0)
    sizes = _strata(everything)
    assert len(everything) == len({e.item_id for e in pool if e.kind != "verdict_reference"})
    assert len(sizes) >= 6  # two models, two tasks, two judge labels
    packet = draw_packet(pool, n=15, seed=0)
    got = _strata(packet)
    total = sum(sizes.values())
    for key, size in sizes.items():
        assert abs(got[key] - 15 * size / total) < 1, key


def test_equal_allocation_covers_every_stratum(pool) -> None:
    strata = _strata(draw_packet(pool, n=10_000, seed=0))
    packet = draw_packet(pool, n=len(strata), seed=1, allocation="equal")
    assert set(_strata(packet)) == set(strata) and len(packet) == len(strata)


def test_reference_turns_are_never_in_a_packet(tmp_path: Path, judge_meta) -> None:
    write_run(tmp_path, "org/model-a", {"uta_heldout_demo": 5}, judge_meta())
    packet = draw_packet(sample_items([tmp_path]), n=100, seed=0)
    assert len(packet) == 5 and not any("REFERENCE TURN" in it.user_turn for it in packet)


def test_bad_arguments_are_refused(pool) -> None:
    with pytest.raises(ValueError, match="allocation"):
        draw_packet(pool, n=5, seed=0, allocation="random")
    with pytest.raises(ValueError, match="positive"):
        draw_packet(pool, n=0, seed=0)


def test_answers_persist_per_annotator_in_their_own_order(tmp_path: Path, pool) -> None:
    db_path = tmp_path / "ann.sqlite"
    with AnnotationDB(db_path) as db:
        db.create_packet(draw_packet(pool, n=8, seed=0), {"seed": 0})
        alice, bob = db.order("alice"), db.order("bob")
        assert sorted(alice) == sorted(bob) and alice != bob and db.order("alice") == alice
        assert db.answer("alice", 0, {"label": "other"}) == ("other", None)
        assert db.answer("alice", 0, {"genuine": False}) == ("other", False)
        db.answer("alice", 1, {"label": "plausible_followup", "genuine": True})
        db.answer("alice", 2, {"genuine": True})  # incomplete: no label
        with pytest.raises(AnnotationError, match="not one of"):
            db.answer("alice", 3, {"label": "genuine_followup"})
        with pytest.raises(AnnotationError, match="outside the packet"):
            db.answer("alice", 8, {"genuine": True})
        with pytest.raises(AnnotationError, match="annotator name"):
            db.order("<script>")
    with AnnotationDB(db_path) as db:  # reopened: everything is still there
        shown = db.shown("alice", 1)
        assert (shown.label, shown.genuine) == ("plausible_followup", True)
        assert db.progress("alice") == (2, 2) and db.progress("bob") == (0, 0)
        rows, incomplete = db.export()
    assert incomplete == 1
    assert rows == sorted(
        [{"item_id": alice[0], "annotator": "alice", "label": "other", "genuine": False},
         {"item_id": alice[1], "annotator": "alice", "label": "plausible_followup", "genuine": True}],
        key=lambda row: row["item_id"],
    )
    out = tmp_path / "human.jsonl"
    assert export(db_path, out, "alice") == 2 and len(out.read_text().splitlines()) == 2


def test_serve_draws_once_and_refuses_a_different_packet(tmp_path: Path, judge_meta) -> None:
    runs = tmp_path / "runs"
    write_run(runs, "org/model-a", {"uta_gsm8k": 6}, judge_meta())
    db_path = tmp_path / "ann.sqlite"
    with pytest.raises(AnnotationError, match="holds no packet"):
        prepare_packet(db_path, [], 4, 0, "proportional", ["verdict"])
    assert prepare_packet(db_path, [str(runs)], 4, 0, "proportional", ["verdict"]) == 4
    assert prepare_packet(db_path, [str(runs)], 4, 0, "proportional", ["verdict"]) == 4
    assert prepare_packet(db_path, [], 99, 9, "equal", ["verdict"]) == 4  # reopening ignores drawing options
    with pytest.raises(AnnotationError, match="already holds a packet"):
        prepare_packet(db_path, [str(runs)], 5, 0, "proportional", ["verdict"])
    with pytest.raises(AnnotationError, match="annotators see only"):
        prepare_packet(tmp_path / "other.sqlite", [str(runs)], 4, 0, "proportional", ["verdict_reference"])
