"""A report whose run holds a 50 MB user turn against an ordinary one, in this process:
size of report.html, and seconds until headless Chromium has loaded it and the sample
browser has drawn its first rows (median of a few loads each). Prints both and the ratios::

    PYTHONPATH=$PWD python perf/report_page_bound.py              # 50 MB turn, 3 loads each
    PYTHONPATH=$PWD python perf/report_page_bound.py --mb 5 --loads 5

Needs the report tests' browser (system Chromium and chromedriver, Selenium).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO_ROOT / "tests" / folder) for folder in ("security", "annotate", "judge", "report")]


def _runs(root: Path, megabytes: int) -> dict[str, Path]:
    from hostile_run import task_configs
    from saved_runs import write_run

    out = {}
    for name in ("ordinary", "huge"):
        folder = write_run(root / name, "org/model-a", {"uta_gsm8k": 20}, None)  # no verdicts: no judge needed
        (results,) = folder.glob("results_*.json")
        data = json.loads(results.read_text())
        data["configs"] = task_configs(data["results"])
        results.write_text(json.dumps(data))
        (samples,) = folder.glob("samples_*.jsonl")
        lines = []
        for line in samples.read_text().splitlines():
            row = json.loads(line)
            row["doc"]["answer"] = f"so #### {row['doc_id']}"  # GSM8K's schema: the report scores the docs
            lines.append(json.dumps(row))
        samples.write_text("\n".join(lines) + "\n")
        if name == "huge":
            row = json.loads(lines[0])
            record = json.loads(row["filtered_resps"][0][0])
            record["u"] = "x" * (megabytes * 2**20)
            row["resps"] = row["filtered_resps"] = [[json.dumps(record)]]
            samples.write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n")
        out[name] = root / name
    return out


def _open_seconds(driver, page: Path) -> float:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get("about:blank")
    started = time.perf_counter()
    driver.get(page.as_uri())
    WebDriverWait(driver, 600).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#sample-list > *"))
    return time.perf_counter() - started


def main() -> None:
    from browser import start_chromium

    from uta_tasks.apps.report.cli import main as report_main

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50, help="size of the long user turn in MiB")
    parser.add_argument("--loads", type=int, default=3, help="page loads per report")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pages = {}
        for name, runs in _runs(root, args.mb).items():
            assert report_main([str(runs), "--output_path", str(runs / "report")]) == 0
            pages[name] = runs / "report" / "report.html"
        sizes = {name: page.stat().st_size for name, page in pages.items()}
        driver = start_chromium(root / "profile")
        try:
            seconds = {name: statistics.median(_open_seconds(driver, page) for _ in range(args.loads))
                       for name, page in pages.items()}
        finally:
            driver.quit()
    for name in pages:
        print(f"{name}: report.html {sizes[name]:,} bytes, opened in {seconds[name]:.2f} s (median of {args.loads})")
    print(f"ratio huge/ordinary: size {sizes['huge'] / sizes['ordinary']:.2f}, "
          f"open {seconds['huge'] / seconds['ordinary']:.2f}")


if __name__ == "__main__":
    main()
