"""Fixtures of the attack suite: saved runs judged through the real judge path, the judge
double of tests/judge, and a served annotation packet."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in ("annotate", "judge", "runs", "report"):
    sys.path.insert(0, str(HERE.parent / folder))

import pytest  # noqa: E402
from saved_runs import judge_double, judge_meta, write_run  # noqa: E402,F401 - shared fixtures

from uta_tasks.apps.annotate import AnnotationDB, draw_packet  # noqa: E402
from uta_tasks.runs.sample_items import sample_items  # noqa: E402


@pytest.fixture
def packet(tmp_path: Path, judge_meta) -> Path:  # noqa: F811 - the fixture imported above
    """An annotation database holding a 6-item packet drawn from a judged saved run."""
    write_run(tmp_path / "runs", "org/model-a", {"uta_gsm8k": 6}, judge_meta())
    db_path = tmp_path / "ann.sqlite"
    with AnnotationDB(db_path) as db:
        db.create_packet(draw_packet(sample_items([tmp_path / "runs"]), n=6, seed=0), {"seed": 0})
    return db_path
