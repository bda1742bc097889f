"""docs/reproducing.md states the cells one GPU can check with the interval the package computes."""

from __future__ import annotations

from pathlib import Path

from uta_tasks.paper.single_gpu import single_gpu_cells, width_table

DOC = Path(__file__).resolve().parents[2] / "docs" / "reproducing.md"


def test_the_interval_table_is_the_packages():
    assert width_table() in DOC.read_text(encoding="utf-8"), "regenerate with uta_tasks.paper.single_gpu.width_table()"


def test_the_single_gpu_cells_are_the_issues_groups():
    cells = single_gpu_cells()
    assert {c.model for c in cells if c.metric == "accuracy"} == {
        *(f"Qwen/Qwen3.5-{s}" for s in ("0.8B", "2B", "4B", "9B", "27B", "35B-A3B")),
        "openai/gpt-oss-20b", "openai/gpt-oss-120b"}
    sweep = [c for c in cells if c.source == "Table 4"]
    assert {c.temperature for c in sweep} == {0.0, 0.3, 0.7, 1.0} and len(sweep) == 12
    assert [c.value for c in cells if c.model == "Qwen/Qwen3.5-9B" and c.benchmark == "gpqa_diamond"] == [13.1]
    assert {(c.model, c.perturbation) for c in cells if c.source == "Table 1"} == {
        ("openai/gpt-oss-20b", "trunc"), ("openai/gpt-oss-120b", "trunc")}
