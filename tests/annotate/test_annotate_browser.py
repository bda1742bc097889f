"""The annotation page in a real browser: headless Debian Chromium driven by Selenium
through the packaged chromedriver. Annotate with the keyboard, reload, check that every
answer persisted, that no blinded field reached the browser, and that the page renders."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from png_pixels import decode
from saved_runs import write_run

from uta_tasks.apps.annotate import AnnotationDB, AnnotationServer
from uta_tasks.apps.annotate.cli import prepare_packet
from uta_tasks.judge import LABELS

pytestmark = pytest.mark.slow

CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM = Path("/usr/bin/chromium")
MODEL_NAME = "org/secret-model-7b"
# Keyboard answers for the first four positions: (label key, genuine key).
ANSWERS = [("1", "y"), ("2", "n"), ("3", "n"), ("8", "y")]


@pytest.fixture
def driver(tmp_path: Path):
    if not (CHROMEDRIVER.exists() and CHROMIUM.exists()):
        pytest.fail("install Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1100,900", f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    browser.set_page_load_timeout(30)
    try:
        yield browser
    finally:
        browser.quit()


def _wait(browser, condition, what: str, timeout: float = 15.0):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout, poll_frequency=0.05).until(lambda b: condition(b), message=what)


def _ready_at(browser, position: int) -> None:
    _wait(browser, lambda b: b.execute_script(
        "return document.body.dataset.state === 'ready' && document.body.dataset.position === arguments[0]",
        str(position)), f"page ready at position {position}")


def _selected(browser) -> tuple[str | None, str | None]:
    from selenium.webdriver.common.by import By

    labels = [b.get_attribute("data-label") for b in browser.find_elements(By.CSS_SELECTOR, "button.label.selected")]
    genuine = [
        b.get_attribute("data-genuine") for b in browser.find_elements(By.CSS_SELECTOR, "button.genuine.selected")
    ]
    assert len(labels) <= 1 and len(genuine) <= 1
    return (labels[0] if labels else None, genuine[0] if genuine else None)


def _press(browser, *keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    for key in keys:
        ActionChains(browser).send_keys(key).perform()


def test_keyboard_annotation_persists_and_nothing_blinded_reaches_the_browser(
    driver, tmp_path: Path, judge_meta
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    runs = tmp_path / "runs"
    write_run(runs, MODEL_NAME, {"uta_gsm8k_trunc": 5, "uta_heldout_demo": 3}, judge_meta())
    db_path = tmp_path / "ann.sqlite"
    assert prepare_packet(db_path, [str(runs)], 8, 0, "proportional", ["verdict", "verdict_ref"]) == 8
    responses: list[tuple[str, str, int, bytes]] = []
    with AnnotationServer(db_path, port=0, on_response=lambda *entry: responses.append(entry)) as server:
        driver.get(server.link)  # the server's own link: its token stays in the tab, the page asks for a name
        name = _wait(driver, lambda b: b.find_element(By.ID, "annotator-name"), "login form")
        name.send_keys("alice", Keys.ENTER)
        _ready_at(driver, 0)
        for position, (label_key, genuine_key) in enumerate(ANSWERS):
            _press(driver, label_key, genuine_key)
            expected = (LABELS[int(label_key) - 1], "true" if genuine_key == "y" else "false")
            _wait(driver, lambda b, e=expected: _selected(b) == e and b.find_element(By.ID, "status").text == "Saved"
                  and b.execute_script("return document.body.dataset.state") == "ready", f"saved {expected}")
            _press(driver, Keys.ARROW_RIGHT)
            _ready_at(driver, position + 1)

        driver.refresh()  # the page comes back where it was, with every answer
        _ready_at(driver, len(ANSWERS))
        assert _selected(driver) == (None, None)
        assert f"{len(ANSWERS)} answered" in driver.find_element(By.ID, "progress").text
        for position in reversed(range(len(ANSWERS))):
            _press(driver, Keys.ARROW_LEFT)
            _ready_at(driver, position)
            label_key, genuine_key = ANSWERS[position]
            assert _selected(driver) == (LABELS[int(label_key) - 1], "true" if genuine_key == "y" else "false")
        _press(driver, "5")  # change an answer after going back
        _wait(driver, lambda b: _selected(b)[0] == LABELS[4] and b.execute_script(
            "return document.body.dataset.state") == "ready", "changed label saved")

        screenshot = tmp_path / "annotate.png"
        assert driver.save_screenshot(str(screenshot))
        driver.get(server.url + "?annotator=alice")  # a fresh visit resumes at the first open item
        _ready_at(driver, len(ANSWERS))

    with AnnotationDB(db_path) as db:
        order = db.order("alice")
        rows, incomplete = db.export("alice")
    assert incomplete == 0
    stored = {row["item_id"]: (row["label"], row["genuine"]) for row in rows}
    expected = {order[p]: (LABELS[int(k) - 1], g == "y") for p, (k, g) in enumerate(ANSWERS)}
    expected[order[0]] = (LABELS[4], True)
    assert stored == expected

    # Blinding: nothing of the model, data set, perturbation, reference turn or judge output
    # is in any response the browser received.
    assert {path.split("?")[0] for _, path, _, _ in responses} >= {"/", "/static/app.js", "/static/app.css",
                                                                    "/api/session", "/api/item", "/api/answer"}
    received = b"\n".join(body for *_, body in responses).decode("utf-8").lower()
    for secret in ("secret-model", "org/", "gsm8k", "uta_", "healthbench", "heldout", "trunc", "perturbation",
                   "reference turn", "judge", "verdict", "rationale", "deterministic test verdict", "fault-judge",
                   "followupeval", "benchmark", "model"):
        assert secret not in received, secret

    width, height, _, rows = decode(screenshot.read_bytes())
    pixels = Counter(row[x:x + 3] for row in rows[::4] for x in range(0, len(row), 4 * 4))
    background_share = pixels.most_common(1)[0][1] / sum(pixels.values())
    assert width >= 800 and height >= 600 and len(pixels) > 20 and background_share < 0.98
    keep = Path(__file__).resolve().parents[2] / "out" / "annotate-screenshot.png"
    keep.parent.mkdir(exist_ok=True)
    shutil.copyfile(screenshot, keep)  # out/ is git-ignored: look at it after the run


def test_invite_link_opens_the_page_for_its_annotator_only(driver, tmp_path: Path, judge_meta, capsys) -> None:
    """A server with invites forced on (on 127.0.0.1): the invite link opens alice's page, her
    answer is saved under her name, and the secret leaves the address bar and never goes out in a URL."""
    from uta_tasks.apps.annotate.cli import main as annotate_main

    runs = tmp_path / "runs"
    write_run(runs, MODEL_NAME, {"uta_gsm8k_trunc": 4}, judge_meta())
    db_path = tmp_path / "ann.sqlite"
    assert prepare_packet(db_path, [str(runs)], 4, 0, "proportional", ["verdict"]) == 4
    assert annotate_main(["invite", "alice", "--db", str(db_path)]) == 0
    secret = capsys.readouterr().out.strip().splitlines()[-1].split("#key=")[1]
    responses: list[tuple[str, str, int, bytes]] = []
    with AnnotationServer(db_path, port=0, require_invites=True,
                          on_response=lambda *entry: responses.append(entry)) as server:
        link = f"{server.url}#key={secret}"
        driver.get(server.url)  # without the link: the login form, and the API refuses a typed name
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        _wait(driver, lambda b: b.find_element(By.ID, "annotator-name"), "login form").send_keys("alice", Keys.ENTER)
        _wait(driver, lambda b: b.execute_script("return document.body.dataset.state") == "error", "refused")
        assert "personal link" in driver.find_element(By.ID, "status").text

        driver.get(link)
        _ready_at(driver, 0)
        assert secret not in driver.current_url
        assert driver.find_element(By.ID, "progress").text.startswith("alice · item 1 of 4")
        _press(driver, "1", "y")
        _wait(driver, lambda b: b.execute_script("return document.body.dataset.state") == "ready"
              and _selected(b) == (LABELS[0], "true") and b.find_element(By.ID, "status").text == "Saved",
              "saved through the link")
        driver.refresh()  # the tab keeps the key: the page comes back for alice, with her answer
        _ready_at(driver, 0)
        assert _selected(driver) == (LABELS[0], "true")
        assert "1 answered" in driver.find_element(By.ID, "progress").text
    with AnnotationDB(db_path) as db:
        rows, _ = db.export()
    assert [(r["annotator"], r["label"], r["genuine"]) for r in rows] == [("alice", LABELS[0], True)]
    assert all(secret not in path for _, path, _, _ in responses)
    assert {status for method, path, status, _ in responses if path.startswith("/api/")} >= {200, 401}
