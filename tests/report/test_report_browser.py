"""The report in a real headless Chromium (Debian package) driven by chromedriver: tables, figures,
filters of the sample browser, no network requests, a screenshot that is not blank."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser import pixel_spread, start_chromium
from report_runs import write_report_runs

from uta_tasks.apps.report import build_report
from uta_tasks.runs import EstimateSettings

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    d = start_chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield d
    d.quit()


def _rows(driver, table_id):
    from selenium.webdriver.common.by import By

    return [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in driver.find_elements(By.CSS_SELECTOR, f"#{table_id} tbody tr")]


def _select(driver, element_id, value):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, element_id)).select_by_value(value)


def _cards(driver):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, "#sample-list article.sample")


def _count(driver):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, "sample-count").text


def _open(driver, html: Path) -> None:
    driver.get(html.resolve().as_uri())
    assert driver.execute_script("return document.readyState") == "complete"


def _no_network_and_no_errors(driver) -> None:
    resources = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert resources == [], f"the page fetched {resources}"
    severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []


def _figures(driver) -> list[tuple[str, float, float]]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('figure.figure')).map(f => {"
        " const r = f.querySelector('svg').getBoundingClientRect(); return [f.id, r.width, r.height]; })")


def test_constructed_report_in_chromium(driver, tmp_path):
    folders = write_report_runs(tmp_path / "runs")
    files = build_report(folders, tmp_path / "out", settings=EstimateSettings(iterations=300))
    _open(driver, files.html)
    _no_network_and_no_errors(driver)

    headline = _rows(driver, "table-headline")
    assert [r[:2] for r in headline] == [["org/model-a", "0"], ["org/model-a", "0.7"], ["org/model-b", "0"],
                                         ["org/model-b", "0.7"]]
    assert headline[0][2] == "10.0 [2.8, 30.1]"
    assert len(_rows(driver, "table-perturbations")) == 4
    assert len(_rows(driver, "table-temperatures")) == 3  # model-a gsm8k, model-a gpqa_diamond, model-b gsm8k

    figs = _figures(driver)
    assert [f[0] for f in figs] == ["fig-headline", "fig-labels", "fig-perturbations", "fig-temperature",
                                    "fig-paper-fig3", "fig-paper-fig1-4", "fig-paper-table6"]
    assert all(w > 200 and h > 80 for _, w, h in figs)

    assert _count(driver) == "Showing 100 of 160 matching user turns (160 in total)."
    _select(driver, "filter-task", "uta_gsm8k_trunc")
    assert _count(driver).startswith("Showing 80 of 80 ")
    _select(driver, "filter-model", "org/model-b")
    _select(driver, "filter-genuine", "yes")
    cards = _cards(driver)
    assert _count(driver).startswith("Showing 9 of 9 ")  # trunc: 4 at T=0 plus 5 at T=0.7
    assert {c.get_attribute("data-task") for c in cards} == {"uta_gsm8k_trunc"}
    assert {c.get_attribute("data-genuine") for c in cards} == {"yes"}
    _select(driver, "filter-task", "")
    _select(driver, "filter-label", "plausible_followup")
    assert _count(driver).startswith("Showing 10 of 10 ")

    shot = tmp_path / "report.png"
    driver.execute_script("window.scrollTo(0, 0)")
    assert driver.save_screenshot(str(shot))
    spread, inked = pixel_spread(shot)
    assert spread > 20 and inked > 0.03, (spread, inked)


def test_real_run_report_in_chromium(driver, uta_real_run, tmp_path):
    files = build_report([uta_real_run], tmp_path / "out", settings=EstimateSettings(iterations=300))
    _open(driver, files.html)
    _no_network_and_no_errors(driver)
    headline = _rows(driver, "table-headline")
    assert len(headline) == 1 and headline[0][0] == "smollm2-135m-instruct" and headline[0][1] == "0"
    assert [r[2:4] for r in _rows(driver, "table-perturbations")] == [["ifbench", "trunc"]]
    assert [r[2] for r in _rows(driver, "table-metrics-judging")] == ["uta_ifbench", "uta_ifbench_trunc"]
    prov = _rows(driver, "table-provenance")
    assert prov[0][2] == "generated" and prov[0][4] == "smollm2-135m-instruct" and prov[0][5] == "followupeval-v4"
    assert {f[0] for f in _figures(driver)} >= {"fig-headline", "fig-labels", "fig-perturbations"}
    assert _count(driver) == "Showing 6 of 6 matching user turns (6 in total)."
    _select(driver, "filter-task", "uta_ifbench_trunc")
    assert _count(driver) == "Showing 3 of 3 matching user turns (6 in total)."
    shot = tmp_path / "real.png"
    assert driver.save_screenshot(str(shot))
    spread, inked = pixel_spread(shot)
    assert spread > 20 and inked > 0.03, (spread, inked)
