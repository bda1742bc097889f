"""The paper-tables sections of the report in a real headless Chromium: the cells the page shows
for constructed runs of paper models, the reference check's verdicts, the section links, and the
paper's figures drawn at a visible size in their sections."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "report"))

from browser import start_chromium
from paper_report_runs import write_paper_report_runs

from uta_tasks.apps.report import build_report
from uta_tasks.runs import EstimateSettings

pytestmark = pytest.mark.slow


def _rows(driver, table_id):
    from selenium.webdriver.common.by import By

    return [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in driver.find_elements(By.CSS_SELECTOR, f"#{table_id} tbody tr")]


def test_paper_tables_in_chromium(tmp_path):
    from selenium.webdriver.common.by import By

    files = build_report(write_paper_report_runs(tmp_path / "runs"), tmp_path / "out",
                         settings=EstimateSettings(iterations=300))
    driver = start_chromium(tmp_path / "profile")
    try:
        driver.get(files.html.resolve().as_uri())
        assert driver.execute_script("return document.readyState") == "complete"
        links = {a.get_attribute("href").split("#")[1] for a in driver.find_elements(By.CSS_SELECTOR, "nav a")}
        assert {"paper-table1-trunc", "paper-table1-question", "paper-tables35", "paper-fig3", "paper-table4",
                "paper-table6", "paper-reference"} <= links
        heading = driver.find_element(By.CSS_SELECTOR, "#paper-table1-trunc h2")
        assert heading.text == "Paper Table 1 (left): truncation" and heading.is_displayed()
        assert _rows(driver, "table-paper-table1-trunc") == [["openai/gpt-oss-120b", "0", "20.7 [15.6, 26.9]",
                                                              "65.7 [58.8, 71.9]"]]
        assert _rows(driver, "table-paper-table1-question")[0][3:] == ["1.3 [0.5, 3.4]", "25.7 [21.1, 30.9]",
                                                                       "99.0 [97.1, 99.7]"]
        sweep = {r[0]: r[1:] for r in _rows(driver, "table-paper-table4")}
        assert sweep["Qwen/Qwen3.5-27B"][-1] == "35.9 [29.5, 42.7]"
        reference = _rows(driver, "table-paper-reference")
        shown = {(r[0], r[2], r[3], r[4]): (r[5], r[6], r[8]) for r in reference}
        assert shown[("Table 5", "uta_gsm8k", "genuine_followup", "0")] == ("1.2", "1.2 [0.7, 2.0]", "inside")
        assert shown[("Table 1", "uta_gpqa_diamond_trunc", "genuine_followup_diff", "0")][::2] == ("45.0", "inside")
        assert {r[8] for r in reference if r[0] != "Table 6"} == {"inside"}
        figures = driver.execute_script(
            "return Array.from(document.querySelectorAll('figure.figure')).filter(f => f.id.startsWith('fig-paper'))"
            ".map(f => { const r = f.querySelector('svg').getBoundingClientRect();"
            " return [f.closest('section').id, f.id, r.width, r.height]; })")
        assert [f[:2] for f in figures] == [["paper-fig3", "fig-paper-fig3"], ["paper-table4", "fig-paper-fig1-4"],
                                            ["paper-table6", "fig-paper-table6"]]
        assert all(w > 300 and h > 150 for *_, w, h in figures), figures
        severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert severe == []
    finally:
        driver.quit()
