"""The report's files built from constructed runs: tables, figures, Markdown, no network references."""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from report_runs import write_report_runs

from uta_tasks.apps.report import build_report
from uta_tasks.apps.report.cli import main as report_main
from uta_tasks.runs import EstimateSettings


class Tables(HTMLParser):
    """Cells of every <table id=...> in the page, and the sample data JSON."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._in_body = False
        self._script: str | None = None
        self.samples = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._table = a.get("id")
            self.tables[self._table] = []
        elif tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._table and self._in_body:
            self.tables[self._table].append([])
        elif tag == "td" and self._table:
            self._cell = []
        elif tag == "script":
            self._script = a.get("id")

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.tables[self._table][-1].append("".join(self._cell))
            self._cell = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self._table = None
        elif tag == "script":
            self._script = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._script == "sample-data":
            self.samples += data


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    folders = write_report_runs(root / "runs")
    files = build_report(folders, root / "out", settings=EstimateSettings(iterations=300))
    page = Tables()
    page.feed(files.html.read_text())
    return files, page


def test_headline_table_has_one_row_per_model_and_temperature(report):
    _, page = report
    rows = page.tables["table-headline"]
    assert [r[:2] for r in rows] == [["org/model-a", "0"], ["org/model-a", "0.7"], ["org/model-b", "0"],
                                     ["org/model-b", "0.7"]]
    # gsm8k follow-up 2/20 = 10.0 % with its Wilson interval, accuracy 50 %; gpqa_diamond only for model-a at T=0
    assert rows[0][2] == "10.0 [2.8, 30.1]" and rows[0][3] == "50.0"
    assert rows[0][4] == "100.0 [43.9, 100.0]" and rows[1][4] == "—"


def test_label_perturbation_temperature_conditioned_and_unjudged_tables(report):
    _, page = report
    labels = page.tables["table-labels"]
    assert labels[0][:4] == ["org/model-a", "0", "23", "21.7"]  # 2 of 20 gsm8k + 3 of 3 gpqa plausible
    pert = page.tables["table-perturbations"]
    assert [r[:4] for r in pert][:2] == [["org/model-a", "0", "gsm8k", "trunc"], ["org/model-a", "0.7", "gsm8k",
                                                                                  "trunc"]]
    assert pert[0][4].startswith("10.0") and pert[0][5].startswith("50.0") and pert[0][6].startswith("40.0 [")
    temps = page.tables["table-temperatures"]
    assert ["org/model-b", "gsm8k", "0.0 [0.0, 16.1]", "5.0 [0.9, 23.6]"] in temps
    cond = page.tables["table-metrics-conditioned"]
    row = next(r for r in cond if r[:3] == ["org/model-a", "0", "uta_gsm8k"])
    assert row[3:] == ["10.0 [1.8, 40.4] n=10", "10.0 [1.8, 40.4] n=10"]  # 10 correct, 10 wrong repeats
    judging = page.tables["table-metrics-judging"]
    assert ["org/model-a", "0", "uta_gpqa_diamond", "1 of 4 (25.0 [4.6, 69.9])"] == judging[2][:4]


def test_every_metric_a_run_reports_is_in_a_table_of_its_section(report):
    """The tables by task are generated from the metric table: each probe metric the runs
    report is a column of its row's section, in the table's order."""
    from uta_tasks.metrics.table import PROBE_METRICS

    files, page = report
    html = files.html.read_text()
    for m in PROBE_METRICS:
        if m.name in ("genuine_prob", "n_judged_reference", "n_unjudged_reference", "genuine_followup_reference"):
            continue  # no run here samples several user turns or is held-out
        assert f"<th>{m.name}</th>" in html.split(f'id="table-metrics-{m.section}"', 1)[1].split("</table>", 1)[0], \
            m.name
    assert "table-conditioned" not in page.tables and "table-unjudged" not in page.tables  # no hand-kept copy


def test_provenance_names_judge_prompt_and_versions(report):
    _, page = report
    prov = page.tables["table-provenance"]
    assert len(prov) == 5
    assert prov[0][2] == "generated"  # the answers: no answers_from
    assert prov[0][4:9] == ["judge-x", "followupeval-v1", "0", "0.4.13", "4.0.0"]


def test_figures_are_written_as_svg_and_inlined(report):
    files, _ = report
    assert [f.name for f in files.figures] == ["headline", "labels", "perturbations", "temperature", "paper-fig3",
                                               "paper-fig1-4", "paper-table6"]
    html = files.html.read_text()
    for fig in files.figures:
        assert ET.parse(fig.svg).getroot().tag.endswith("svg")
        assert f'id="fig-{fig.name}"' in html
    assert html.count("<svg") == sum(f.svg_inline.count("<svg") for f in files.figures)  # panels nest <svg>


def test_page_is_self_contained(report):
    files, _ = report
    html = files.html.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<link" not in html and "@import" not in html
    assert re.search(r"<style>.+</style>", html, re.DOTALL) and "sample-data" in html


def test_sample_browser_data_holds_every_turn_with_its_judge_prompt(report):
    _, page = report
    rows = json.loads(page.samples)
    assert len(rows) == 4 * 2 * 20  # gpqa was logged without samples
    first = rows[0]
    assert first["prompt"].startswith("[system]") and first["label"] == "plausible_followup"
    assert {r["genuine"] for r in rows} == {"yes", "no"}
    assert all("u_ref" in r for r in rows if r["task"] == "uta_gsm8k_trunc")


def test_markdown_summary(report):
    files, _ = report
    md = files.markdown.read_text()
    assert "| org/model-a | 0 | 10.0 [2.8, 30.1] | 50.0 |" in md
    assert "![Label distribution per model](figures/labels.svg)" in md
    assert "### Provenance" in md


def test_hostile_sample_text_cannot_end_the_script(tmp_path):
    from run_builder import Doc, RunSpec, Turn, write_run

    write_run(tmp_path / "r", RunSpec({"uta_gsm8k": [Doc([Turn(True)], u_text="</script><script>alert(1)</script>")]}))
    files = build_report([tmp_path / "r"], tmp_path / "out")
    html = files.html.read_text()
    assert "alert(1)" in html and "</script><script>alert" not in html


def test_uta_report_command(tmp_path, capsys):
    folders = write_report_runs(tmp_path / "runs")
    assert report_main([str(folders[0]), "--output_path", str(tmp_path / "o"), "--iterations", "200"]) == 0
    printed = capsys.readouterr().out.split()
    assert printed[0].endswith("report.html") and any(p.endswith("headline.svg") for p in printed)
    assert report_main([str(tmp_path / "none"), "--output_path", str(tmp_path / "o2")]) == 2
    assert "does not exist" in capsys.readouterr().err
