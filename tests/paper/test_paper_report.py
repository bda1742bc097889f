"""``uta-report`` on constructed runs of paper models: the paper's table layouts hold the runs'
numbers, the reference check shows every matched cell inside, empty sections are left out."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "report"))

from paper_report_runs import write_paper_report_runs
from test_report_build import Tables

from uta_tasks.apps.report.cli import main as report_main


def _tables(html: Path) -> dict[str, list[list[str]]]:
    parser = Tables()
    parser.feed(html.read_text(encoding="utf-8"))
    return parser.tables


@pytest.fixture(scope="module")
def paper_runs(tmp_path_factory) -> list[Path]:
    return write_paper_report_runs(tmp_path_factory.mktemp("paper-runs"))


@pytest.fixture(scope="module")
def report(paper_runs, tmp_path_factory) -> dict[str, list[list[str]]]:
    out = tmp_path_factory.mktemp("paper-report")
    assert report_main([*map(str, paper_runs), "--output_path", str(out), "--iterations", "200"]) == 0
    return _tables(out / "report.html")


def test_table1_both_panels(report):
    assert report["table-paper-table1-trunc"] == [["openai/gpt-oss-120b", "0", "20.7 [15.6, 26.9]",
                                                   "65.7 [58.8, 71.9]"]]
    assert report["table-paper-table1-question"] == [["openai/gpt-oss-120b", "0", "IFBench", "1.3 [0.5, 3.4]",
                                                      "25.7 [21.1, 30.9]", "99.0 [97.1, 99.7]"]]


def test_tables_3_5_and_the_temperature_sweep(report):
    rows = {(r[0], r[1]): r[2:] for r in report["table-paper-tables35"]}
    # columns: GSM8K Acc., GSM8K, IFBench, GPQA Dia. (the package's = the paper's order)
    assert rows[("zai-org/GLM-4.7", "0")][:2] == ["95.3 [94.0, 96.3]", "1.2 [0.7, 2.0]"]
    assert rows[("Qwen/Qwen3.5-27B", "1")][2:] == ["30.7 [25.7, 36.1]", "35.9 [29.5, 42.7]"]
    sweep = {r[0]: r[1:] for r in report["table-paper-table4"]}
    assert sweep["Qwen/Qwen3.5-27B"][2:] == ["1.0 [0.3, 2.9]", "30.7 [25.7, 36.1]", "1.5 [0.5, 4.4]",
                                             "35.9 [29.5, 42.7]"]


def test_table6_pools_per_family(report):
    rows = {r[0]: r[1:] for r in report["table-paper-table6"]}
    assert rows["meta_planning"] == ["0.0", "0.0", "98.8"]  # Qwen3.5 T=0, T=1, GLM-4.7 T=0
    assert rows["previous_turn_restate"][:2] == ["98.8", "67.3"]


def test_reference_check_shows_every_matched_cell_inside(report):
    rows = report["table-paper-reference"]
    verdicts = {(r[0], r[2], r[3], r[4]): r[8] for r in rows}
    assert verdicts[("Table 5", "uta_gsm8k", "accuracy", "0")] == "inside"
    assert verdicts[("Table 1", "uta_gpqa_diamond_trunc", "genuine_followup_diff", "0")] == "inside"
    assert verdicts[("Table 1 (right)", "uta_ifbench_question", "share_changed", "0")] == "inside"
    assert verdicts[("Table 4", "uta_gpqa_diamond", "genuine_followup", "1")] == "inside"
    per_model = [r for r in rows if r[0] != "Table 6"]
    assert {r[8] for r in per_model} == {"inside"}
    assert {r[8] for r in rows if r[0] == "Table 6"} == {"not comparable"}  # 498 or 1319 pooled docs, not 5612/2806


def test_family_override_and_sections_without_data_are_left_out(paper_runs, tmp_path):
    qwen_t0 = paper_runs[0]
    assert report_main([str(qwen_t0), "--output_path", str(tmp_path), "--family", "Qwen/Qwen3.5-27B=my-family"]) == 0
    tables = _tables(tmp_path / "report.html")
    assert "table-paper-table1-trunc" not in tables and "table-paper-table4" not in tables
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "my-family (%) n=498" in html
    assert not [r for r in tables["table-paper-reference"] if r[0] == "Table 6"]  # no paper family "my-family"


@pytest.fixture(scope="module")
def report_dir(paper_runs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("paper-figures")
    assert report_main([*map(str, paper_runs), "--output_path", str(out), "--iterations", "200"]) == 0
    return out


def test_paper_figures_are_inline_svg_in_their_sections(report_dir):
    import xml.etree.ElementTree as ET

    html = (report_dir / "report.html").read_text(encoding="utf-8")
    for section, figure in (("paper-fig3", "paper-fig3"), ("paper-table4", "paper-fig1-4"),
                            ("paper-table6", "paper-table6")):
        start = html.index(f'<section id="{section}">')
        assert f'id="fig-{figure}"' in html[start:html.index("</section>", start)]
    svg = "{http://www.w3.org/2000/svg}svg"
    sweep = ET.parse(report_dir / "figures" / "paper-fig1-4.svg").getroot()
    panels = [p for p in sweep if p.tag == svg]
    assert [p.find("{http://www.w3.org/2000/svg}title").text for p in panels] == ["GSM8K", "IFBench", "GPQA Dia."]
    fig3 = ET.parse(report_dir / "figures" / "paper-fig3.svg").getroot()
    texts = {"".join(t.itertext()) for t in fig3.iter("{http://www.w3.org/2000/svg}text")}
    assert {"Task accuracy", "Genuine follow-up rate", "zai-org/GLM-4.7", "Qwen/Qwen3.5-27B"} <= texts
    assert "openai/gpt-oss-120b" not in texts  # it has no unperturbed task
