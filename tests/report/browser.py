"""A headless Debian Chromium driven by the system chromedriver (Selenium), for the report tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1300,1800")


def start_chromium(profile: Path) -> Any:
    """A Selenium Chrome driver over the system Chromium with a fresh profile.

    Args:
        profile: an empty folder for ``--user-data-dir``.
    """
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    return driver


def pixel_spread(png: Path) -> tuple[float, float]:
    """Standard deviation of the grey levels and the share of non-white pixels of a screenshot.

    Args:
        png: the screenshot.
    """
    import numpy as np
    from PIL import Image

    grey = np.asarray(Image.open(png).convert("L"), dtype=float)
    return float(grey.std()), float((grey < 245).mean())
