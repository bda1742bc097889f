"""The packaged paper cells are exactly what the builder reads from the committed copies of the
paper's seed text, and every cell is found again in that text."""

from __future__ import annotations

from pathlib import Path

from uta_tasks.paper.build import DEFAULT_OUT, TABLES, build, render
from uta_tasks.paper.cells import load_reference

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "paper"
TABLES_TEXT = (FIXTURES / "paper-figures-and-tables.txt").read_text(encoding="utf-8")
SUMMARY_TEXT = (FIXTURES / "paper-summary-excerpts.txt").read_text(encoding="utf-8")
PAGE_TEXT = (FIXTURES / "paper-page-with-tables.txt").read_text(encoding="utf-8")


def test_packaged_file_is_the_build_of_the_seed_copies():
    assert DEFAULT_OUT.read_text(encoding="utf-8") == render(build(TABLES_TEXT, SUMMARY_TEXT, PAGE_TEXT))


def _printed(value: float, unit: str) -> str:
    return f"{value:.3f}" if unit == "kappa" else f"{value:.1f}"


def test_every_table_cell_stands_in_its_row_and_column_of_the_seed_text():
    lines = [line.strip() for line in TABLES_TEXT.splitlines()]
    specs = {s.source: s for s in TABLES}
    cells = [c for c in load_reference().cells if c.origin == "table"]
    assert len(cells) == 5 * 4 + 3 * 5 + 6 * 6 + 5 * 12 + 6 * 6 + 6 * 3 + 5 * 4
    for cell in cells:
        spec = specs[cell.source]
        caption = next(i for i, line in enumerate(lines) if line.startswith(spec.caption))
        row = max(i for i in range(caption) if lines[i] == cell.row)
        column = [c.printed for c in spec.columns].index(cell.column) + (1 if spec.n_column else 0)
        assert lines[row + 1 + column] == _printed(cell.value, cell.unit), cell.id
        if spec.n_column:
            assert cell.n == int(lines[row + 1]), cell.id


def test_every_text_cell_is_quoted_from_the_seed_text_with_its_number():
    flat = " ".join(SUMMARY_TEXT.split()) + "\n" + " ".join(PAGE_TEXT.split())
    text = [c for c in load_reference().cells if c.origin == "text"]
    assert text
    for cell in text:
        assert cell.quote is not None and cell.quote in flat, cell.id
        printed = f"{cell.value:.3f}" if cell.unit != "%" else f"{cell.value:g}"
        assert printed in cell.quote or f"{cell.value:.1f}" in cell.quote, cell.id


def _cell(source: str, model: str, bench: str, metric: str, pert: str = "none", t: float = 0.0):
    found = [c for c in load_reference().cells if (c.source, c.model, c.benchmark, c.metric, c.perturbation,
                                                    c.temperature) == (source, model, bench, metric, pert, t)]
    assert len(found) == 1, (source, model, bench, metric)
    return found[0]


def test_the_papers_inconsistencies_are_notes_on_the_cells():
    full = _cell("Table 1", "openai/gpt-oss-20b", "gpqa_diamond", "genuine_followup_base", "trunc")
    table5 = _cell("Table 5", "openai/gpt-oss-20b", "gpqa_diamond", "genuine_followup")
    assert (full.value, table5.value) == (1.0, 20.7)
    assert any("Table 1" in n and "Table 5" in n for n in full.notes)
    assert full.notes == table5.notes
    base = _cell("Table 2", "Qwen/Qwen3.5-2B", "gsm8k", "accuracy")
    assert any("62.9" in n and "62.2" in n for n in base.notes)
    coval = _cell("Table 2", "Qwen/Qwen3.5-2B", "coval", "genuine_followup")
    assert coval.n == 93 and coval.n_docs == 100
    assert any("k/93" in n for n in coval.notes)
    agreeing = _cell("Table 5", "Qwen/Qwen3.5-9B", "gpqa_diamond", "genuine_followup")
    assert agreeing.notes == () and agreeing.n == 198


def test_table6_is_pooled_per_family_with_the_papers_denominators():
    ref = load_reference()
    shares = {c.model: c.n for c in ref.cells if c.source == "Table 6"}
    assert shares == {"Qwen3.5": 5612, "gpt-oss": 5612, "GLM-4.7": 2806}
    assert any("two models" in n for n in ref.notes)


def test_the_cells_the_text_adds():
    """Numbers stated only in the text, each against the sentence that states it."""
    right = {(c.model, c.metric): c.value for c in load_reference().cells if c.source == "Table 1 (right)"}
    assert (right[("openai/gpt-oss-20b", "genuine_followup_base")], right[("openai/gpt-oss-20b", "genuine_followup")],
            right[("openai/gpt-oss-20b", "share_changed")]) == (1.0, 6.0, 97.3)
    assert (right[("Qwen/Qwen3.5-27B", "genuine_followup_base")], right[("Qwen/Qwen3.5-27B", "genuine_followup")]) == (
        0.0, 6.3)
    assert right[("Qwen/Qwen3.5-397B-A17B", "share_changed")] == 40.3
    shares = {c.model: c.value for c in load_reference().cells if c.metric == "label_plausible_followup"}
    assert shares == {"Qwen3.5": 2.1, "gpt-oss": 4.2, "GLM-4.7": 1.9}
    assert _cell("Fig. 3", "openai/gpt-oss-20b", "gpqa_diamond", "accuracy").value == 61.1
    assert _cell("Section 3.1", "Qwen/Qwen3.5-9B", "gpqa_diamond", "accuracy").value == 78.6
    assert _cell("Section 3.3", "Qwen/Qwen3.5-0.8B", "ifbench", "accuracy").value == 21.6
    assert _cell("Section 3.3", "Qwen/Qwen3.5-397B-A17B", "ifbench", "accuracy").value == 51.6
    assert _cell("Table 3", "Qwen/Qwen3.5-122B-A10B", "gpqa_diamond", "genuine_followup").value == 0.0
    d1 = {(c.benchmark, c.metric): c.value for c in load_reference().cells if c.model == "openai/gpt-oss-120b"
          and c.source == "Appendix D.1"}
    assert d1 == {("healthbench", "genuine_followup_nano_judge"): 21.2, ("healthbench", "genuine_followup"): 4.8,
                  ("coval", "genuine_followup_nano_judge"): 43.0, ("coval", "genuine_followup"): 16.1}
    corr = {c.metric: c.value for c in load_reference().cells if c.unit == "r"}
    assert corr == {"rate_pearson": 0.642, "rate_spearman": 0.685}
    shares_n = {c.row: c.n for c in load_reference().cells if c.metric == "genuine_share"}
    assert set(shares_n.values()) == {7815, 965}  # Table 7's slice sizes
