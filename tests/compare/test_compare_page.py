"""The comparison page on constructed runs whose answer is known (tests/runs/run_builder.py writes
them as lm-eval would, with the package's own metric functions): two models with equal rates share
their ranks and are marked "not significant"; a third far apart does not overlap them; hostile
names stay text in the page, the SVG and the CSV."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from run_builder import RunSpec, docs, write_run

from uta_tasks.apps.compare.cli import main

N = 80
HOSTILE = 'evil"><img src=x onerror=alert(1)>'


def _runs(root: Path, names: dict[str, str]) -> None:
    """Three runs: ``same-a`` and ``same-b`` with the same verdicts (20%), ``far`` at 90%."""
    for name, slug in names.items():
        rate = 10 if name.startswith("far") or name == HOSTILE else 5
        genuine = [d % rate != 0 if rate == 10 else d % 5 == 0 for d in range(N)]
        spec = RunSpec({"uta_gsm8k": docs(genuine, correct=[d % 2 == 0 for d in range(N)]),
                        "uta_gsm8k_trunc": docs([d % 3 == 0 for d in range(N)], ref=genuine)}, model=f"org/{slug}")
        write_run(root / "runs" / slug, spec)


def _config(path: Path, names: dict[str, str]) -> Path:
    models = "\n".join(f"  - {{name: {json.dumps(n)}, model: hf, model_args: pretrained=org/{s}}}" for n, s in names.items())
    path.write_text(f"tasks: uta_gsm8k,uta_gsm8k_trunc\nmetadata: {{judge: none}}\nmodels:\n{models}\n")
    return path


@pytest.fixture()
def page(tmp_path: Path) -> Path:
    names = {"same-a": "same-a", HOSTILE: "evil-img-src-x-onerror-alert-1", "same-b": "same-b"}
    out = tmp_path / "cmp"
    _runs(out, names)
    config = _config(tmp_path / "models.yaml", names)
    assert main([str(config), "--output_path", str(out), "--page_only", "--iterations", "400",
                 "--model_reports", "skip"]) == 0
    return out


def test_equal_models_share_their_rank_interval_and_a_far_one_stands_apart(page):
    board = json.loads((page / "leaderboard.json").read_text())
    gsm8k = next(r for r in board["rankings"] if r["task"] == "uta_gsm8k")
    rows = {r["model"]: r for r in gsm8k["models"]}
    assert [r["model"] for r in gsm8k["models"]] == [HOSTILE, "same-a", "same-b"]
    far, a, b = rows[HOSTILE], rows["same-a"], rows["same-b"]
    assert (far["rank"], far["rank_low"], far["rank_high"]) == (1, 1, 1)
    assert (a["rank"], a["rank_low"], a["rank_high"]) == (b["rank"], b["rank_low"], b["rank_high"]) == (2, 2, 2)
    assert far["next_difference"]["significant"] is True
    assert a["next_difference"]["significant"] is False and b["next_difference"] is None
    assert a["value"] == 0.2 and a["k"] == 16 and a["n"] == N and a["ci_low"] < 0.2 < a["ci_high"]
    assert board["settings"]["iterations"] == 400 and board["schema"] == "uta-leaderboard/1"
    scatter = board["accuracy_vs_followup"]["gsm8k"]
    assert {p["model"] for p in scatter} == set(rows) and scatter[0]["accuracy"]["value"] == 0.5


def test_the_page_csv_and_svg_keep_hostile_names_as_text(page):
    html = (page / "index.html").read_text()
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "Content-Security-Policy" in html and "script-src 'none'" in html
    assert 'class="tie">≈ next: not significant' in html
    for svg in (page / "figures").glob("*.svg"):
        assert "<img" not in svg.read_text()
    rows = list(csv.DictReader(io.StringIO((page / "leaderboard.csv").read_text())))
    assert len(rows) == 6 and {r["model"] for r in rows} == {HOSTILE, "same-a", "same-b"}
    assert [r["differs_from_next"] for r in rows[:3]] == ["yes", "no", ""]


def test_a_formula_in_a_name_is_not_a_formula_in_the_csv(tmp_path):
    names = {"=HYPERLINK(\"http://x\")": "HYPERLINK-http-x", "far": "far"}
    out = tmp_path / "cmp"
    _runs(out, names)
    assert main([str(_config(tmp_path / "m.yaml", names)), "--output_path", str(out), "--page_only",
                 "--iterations", "100", "--model_reports", "skip"]) == 0
    models = {r["model"] for r in csv.DictReader(io.StringIO((out / "leaderboard.csv").read_text()))}
    assert models == {"'=HYPERLINK(\"http://x\")", "far"}


def test_a_missing_run_is_named_and_the_others_are_on_the_page(tmp_path, caplog):
    names = {"same-a": "same-a", "same-b": "same-b"}
    out = tmp_path / "cmp"
    _runs(out, {"same-a": "same-a"})
    assert main([str(_config(tmp_path / "m.yaml", names)), "--output_path", str(out), "--page_only",
                 "--iterations", "100", "--model_reports", "skip"]) == 1
    board = json.loads((out / "leaderboard.json").read_text())
    assert board["models"][1]["error"] and "same-b" in caplog.text
    assert [m["model"] for m in board["rankings"][0]["models"]] == ["same-a"]


def test_each_models_report_is_built_once_and_linked(tmp_path):
    names = {"same-a": "same-a", "far": "far"}
    out = tmp_path / "cmp"
    _runs(out, names)
    config = _config(tmp_path / "m.yaml", names)
    assert main([str(config), "--output_path", str(out), "--page_only", "--iterations", "100"]) == 0
    report = out / "reports" / "far" / "report.html"
    made = report.stat().st_mtime_ns
    assert 'href="reports/far/report.html"' in (out / "index.html").read_text()
    assert main([str(config), "--output_path", str(out), "--page_only", "--iterations", "100"]) == 0
    assert report.stat().st_mtime_ns == made, "a report of unchanged files is not built again"
