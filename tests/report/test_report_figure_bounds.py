"""Every figure of the report shows its whole title, axes and legend, in a real headless
Chromium: the drawn box of each text of a figure lies inside the figure's own box. At one
benchmark (the quickstart's run: IFBench, base and both perturbations) and at five (every
benchmark, two models, two temperatures)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser import start_chromium
from run_builder import RunSpec, docs, write_run

from uta_tasks.apps.report import build_report
from uta_tasks.runs import EstimateSettings

pytestmark = pytest.mark.slow

BENCHMARKS = ("gsm8k", "ifeval", "ifbench", "gpqa_main", "gpqa_diamond")
QUICKSTART_MODEL = "smollm2-135m-instruct"  # the name the quickstart's run carries
N = 5

# Each text of each inline figure, as Chromium drew it, against the figure's <svg> box.
DRAWN_TEXT = """
return Array.from(document.querySelectorAll('figure.figure')).map(f => {
  const svg = f.querySelector('svg');
  const box = svg.getBoundingClientRect();
  const texts = Array.from(svg.querySelectorAll('text')).map(t => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width};
  });
  const title = svg.querySelector('title');
  return {id: f.id, title: title ? title.textContent : null, left: box.left, right: box.right, top: box.top, bottom: box.bottom, texts: texts};
});
"""


def _flags(k: int, n: int = N) -> list[bool]:
    return [i < k for i in range(n)]


def one_benchmark_runs(root: Path) -> list[Path]:
    """The quickstart's shape: one model, IFBench plain, truncated and with a question."""
    spec = RunSpec({"uta_ifbench": docs(_flags(1)), "uta_ifbench_trunc": docs(_flags(2), ref=_flags(1)),
                    "uta_ifbench_question": docs(_flags(0), ref=_flags(1))}, model=QUICKSTART_MODEL)
    write_run(root / "quickstart", spec)
    return [root / "quickstart"]


def five_benchmark_runs(root: Path) -> list[Path]:
    """Every benchmark, base and truncated, for two models at two temperatures."""
    folders = []
    for m, model in enumerate(("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3.5-9B")):
        for t in (0.0, 0.7):
            tasks = {}
            for b, bench in enumerate(BENCHMARKS):
                k = (b + m + int(t * 10)) % (N + 1)
                tasks[f"uta_{bench}"] = docs(_flags(k))
                tasks[f"uta_{bench}_trunc"] = docs(_flags((k + 2) % (N + 1)), ref=_flags(k))
            out = root / f"{model.split('/')[1]}-t{t}"
            write_run(out, RunSpec(tasks, model=model, temperature=t))
            folders.append(out)
    return folders


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    d = start_chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield d
    d.quit()


def clipped_texts(figures: list[dict], slack: float = 0.5) -> list[str]:
    """The texts that reach outside their figure's box, named with their figure and side."""
    out = []
    for fig in figures:
        for t in fig["texts"]:
            if t["width"] == 0:
                continue
            sides = [side for side, outside in (("left", t["left"] < fig["left"] - slack),
                                                ("right", t["right"] > fig["right"] + slack),
                                                ("top", t["top"] < fig["top"] - slack),
                                                ("bottom", t["bottom"] > fig["bottom"] + slack)) if outside]
            if sides:
                out.append(f"{fig['id']}: {t['text']!r} past the {'/'.join(sides)} edge")
    return out


@pytest.mark.parametrize("runs, figures", [
    (one_benchmark_runs, {"headline", "labels", "perturbations"}),
    (five_benchmark_runs, {"headline", "labels", "perturbations", "temperature"}),
], ids=["one-benchmark", "five-benchmarks"])
def test_every_figure_shows_its_whole_title_axes_and_legend(driver, tmp_path, runs, figures):
    files = build_report(runs(tmp_path / "runs"), tmp_path / "out", settings=EstimateSettings(iterations=100))
    driver.get(files.html.resolve().as_uri())
    drawn = driver.execute_script(DRAWN_TEXT)
    assert {f["id"].removeprefix("fig-") for f in drawn} >= figures, [f["id"] for f in drawn]
    for fig in drawn:
        assert fig["title"] and any(t["text"] == fig["title"] and t["width"] > 0 for t in fig["texts"]), (
            f"{fig['id']} draws no title")
    assert clipped_texts(drawn) == []


def test_a_text_past_the_edge_is_found():
    fig = {"id": "fig-x", "left": 0, "right": 100, "top": 0, "bottom": 50,
           "texts": [{"text": "inside", "left": 10, "right": 90, "top": 5, "bottom": 20, "width": 80},
                     {"text": "Genuine follow-up rate", "left": -12, "right": 112, "top": 5, "bottom": 20,
                      "width": 124}]}
    assert clipped_texts([fig]) == ["fig-x: 'Genuine follow-up rate' past the left/right edge"]
