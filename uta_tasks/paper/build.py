"""Build ``uta_tasks/paper/cells_v1.json`` from the paper's seed text.

    python -m uta_tasks.paper.build [--tables FILE] [--summary FILE] [--page FILE] [--out FILE]

``--tables`` is the paper's figures-and-tables text (every table's cells as published,
one cell a line; default: the copy under ``tests/fixtures/paper/``), ``--summary`` the
text holding the numbers the tables lack (default: the excerpt copy beside it), ``--page``
the paper's page with its section summaries (Appendix D.1's per-model numbers). Each
table is read by its caption, its printed header and its rows; a row whose cell count
differs from the header's fails the build. Notes are added, never resolved
(:mod:`uta_tasks.paper.notes`).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from uta_tasks.paper.cells import (
    GENUINE_AGREEMENT,
    GENUINE_KAPPA,
    LABEL_AGREEMENT,
    LABEL_KAPPA,
    Cell,
    PaperReference,
)
from uta_tasks.paper.models import GLM, GPT_OSS, QWEN, paper_model
from uta_tasks.paper.notes import add_notes, label_sums
from uta_tasks.paper.text_cells import PAGE, TEXT_CELLS
from uta_tasks.runs.atomic import write_text

REPO = Path(__file__).resolve().parents[2]
DEFAULT_TABLES = REPO / "tests" / "fixtures" / "paper" / "paper-figures-and-tables.txt"
DEFAULT_SUMMARY = REPO / "tests" / "fixtures" / "paper" / "paper-summary-excerpts.txt"
DEFAULT_PAGE = REPO / "tests" / "fixtures" / "paper" / "paper-page-with-tables.txt"
DEFAULT_OUT = REPO / "uta_tasks" / "paper" / "cells_v1.json"

# Documents per benchmark in the paper (self-generated: the five; held-out: HealthBench, Coval).
N_DOCS = {"gsm8k": 1319, "ifeval": 541, "ifbench": 300, "gpqa_main": 448, "gpqa_diamond": 198,
          "healthbench": 1470, "coval": 100}
PER_MODEL = sum(N_DOCS[b] for b in ("gsm8k", "ifeval", "ifbench", "gpqa_main", "gpqa_diamond"))
FAMILY_DOCS = {QWEN: 2 * PER_MODEL, GPT_OSS: 2 * PER_MODEL, GLM: PER_MODEL}

REFERENCE_NOTES = (
    "Table 3 in the seed text lists 6 of the 8 Qwen3.5 models and Table 4 lists 5; the other rows' "
    "numbers that the text states are text cells.",
    "Table 2 is at T = 0: its caption gives no temperature, and the summary states it twice: \"collaboration-oriented "
    "SFT raises follow-up rates at T=0 from ~1% to 46–48% on verifiable benchmarks (Table 2)\" and \"the base "
    "Qwen3.5-2B model already achieves 36.7% and 19.4% follow-up rates at T=0\".",
    "Section 3.3's IFBench accuracies (21.6% and 51.6%) and Appendix D.1's rates of gpt-oss-120b on HealthBench and "
    "Coval are recorded at T = 0 like the paper's other tables; their sentences give no temperature.",
    "Table 6 pools each family over its models and the five self-generated benchmarks: 5,612 generations "
    f"for Qwen3.5 and gpt-oss are two models x {PER_MODEL:,} documents, 2,806 for GLM-4.7 one model; the "
    "paper does not say which two Qwen3.5 models.",
    "The paper's judge prompt is not published; judge_prompts lists the package's versions written to its "
    "criteria.",
)


@dataclass(frozen=True)
class Column:
    """A column of a table: what its cells measure."""

    printed: str
    benchmark: str | None
    perturbation: str
    temperature: float | None
    metric: str
    unit: str = "%"


@dataclass(frozen=True)
class TableSpec:
    """How to read one table: caption, header lines as printed, one :class:`Column` per number."""

    source: str
    caption: str
    header: tuple[str, ...]
    columns: tuple[Column, ...]
    rows_are: str = "model"  # model | label | slice
    n_column: bool = False  # the first number of a row is its N (Table 7)


def _c(printed: str, bench: str | None, metric: str, pert: str = "none", t: float | None = 0.0,
       unit: str = "%") -> Column:
    return Column(printed, bench, pert, t, metric, unit)


_RATE, _BASE, _ACC = "genuine_followup", "genuine_followup_base", "accuracy"
_FIVE = ("Model", "GSM8K Acc.", "GSM8K", "IFEval", "IFBench", "GPQA Main", "GPQA Dia.")
_FIVE_COLUMNS = (_c("GSM8K Acc.", "gsm8k", _ACC), _c("GSM8K", "gsm8k", _RATE), _c("IFEval", "ifeval", _RATE),
                 _c("IFBench", "ifbench", _RATE), _c("GPQA Main", "gpqa_main", _RATE),
                 _c("GPQA Dia.", "gpqa_diamond", _RATE))
_TEMPS = (0.0, 0.3, 0.7, 1.0)

TABLES: tuple[TableSpec, ...] = (
    TableSpec("Table 1", "Table 1:", ("GSM8K", "GPQA Dia.", "Model", "Full", "Trunc.", "Full", "Trunc."),
              (_c("GSM8K Full", "gsm8k", _BASE, "trunc"), _c("GSM8K Trunc.", "gsm8k", _RATE, "trunc"),
               _c("GPQA Dia. Full", "gpqa_diamond", _BASE, "trunc"),
               _c("GPQA Dia. Trunc.", "gpqa_diamond", _RATE, "trunc"))),
    TableSpec("Table 2", "Table 2:", ("GSM8K", "Genuine Follow-up (%)", "Held-out", "Model", "Acc.", "IFBench",
                                      "GPQA-Diamond", "HealthBench", "Coval"),
              (_c("GSM8K Acc.", "gsm8k", _ACC), _c("IFBench", "ifbench", _RATE),
               _c("GPQA-Diamond", "gpqa_diamond", _RATE), _c("HealthBench", "healthbench", _RATE),
               _c("Coval", "coval", _RATE))),
    TableSpec("Table 3", "Table 3:", _FIVE, _FIVE_COLUMNS),
    TableSpec("Table 4", "Table 4:", ("GSM8K", "GPQA Diamond", "IFBench", "Model",
                                      *(("T=0", "0.3", "0.7", "1.0") * 3)),
              tuple(_c(f"{name} T={t:g}", bench, _RATE, t=t)
                    for name, bench in (("GSM8K", "gsm8k"), ("GPQA Diamond", "gpqa_diamond"), ("IFBench", "ifbench"))
                    for t in _TEMPS)),
    TableSpec("Table 5", "Table 5:", _FIVE, _FIVE_COLUMNS),
    TableSpec("Table 6", "Table 6:", ("Primary Label", "Qwen3.5 (%)", "gpt-oss (%)", "GLM-4.7 (%)"),
              (_c(QWEN, None, ""), _c(GPT_OSS, None, ""), _c(GLM, None, "")), rows_are="label"),
    TableSpec("Table 7", "Table 7:", ("Slice / Judge Pair", "N", "Gen. Agr.", "Gen. κ", "Label Agr.", "Label κ"),
              (_c("Gen. Agr.", None, GENUINE_AGREEMENT, t=None), _c("Gen. κ", None, GENUINE_KAPPA, t=None, unit="kappa"),
               _c("Label Agr.", None, LABEL_AGREEMENT, t=None),
               _c("Label κ", None, LABEL_KAPPA, t=None, unit="kappa")), rows_are="slice", n_column=True),
)


class SeedFormatError(ValueError):
    """The seed text does not hold a table as its spec describes; the message names table and line."""


def _is_number(line: str) -> bool:
    try:
        float(line)
    except ValueError:
        return False
    return True


def _block(lines: list[str], spec: TableSpec) -> list[str]:
    """The lines of a table: from its printed header to its caption."""
    end = next((i for i, line in enumerate(lines) if line.startswith(spec.caption)), None)
    if end is None:
        raise SeedFormatError(f"{spec.source}: no line starts with {spec.caption!r}")
    h = list(spec.header)
    for start in range(end - len(h), -1, -1):
        if lines[start:start + len(h)] == h:
            return lines[start + len(h):end]
    raise SeedFormatError(f"{spec.source}: header {h} not found above its caption")


def parse_rows(lines: list[str], spec: TableSpec) -> list[tuple[str, list[str]]]:
    """``(row label, printed numbers)`` of a table, in order.

    Args:
        lines: the seed text's lines (stripped).
        spec: the table.
    """
    rows: list[tuple[str, list[str]]] = []
    for line in _block(lines, spec):
        if _is_number(line):
            if not rows:
                raise SeedFormatError(f"{spec.source}: number {line!r} before any row label")
            rows[-1][1].append(line)
        else:
            rows.append((line, []))
    rows = [(label, nums) for label, nums in rows if nums]
    want = len(spec.columns) + (1 if spec.n_column else 0)
    for label, nums in rows:
        if len(nums) != want:
            raise SeedFormatError(f"{spec.source}: row {label!r} has {len(nums)} numbers, the header {want}")
    return rows


def _slug(source: str) -> str:
    return source.lower().replace(" ", "").replace(".", "").replace("(", "-").replace(")", "")


def _cell_id(source: str, model: str, bench: str | None, pert: str, t: float | None, metric: str) -> str:
    temp = "T-" if t is None else f"T{t:g}"
    return f"{_slug(source)}/{model}/{bench or '-'}/{pert}/{temp}/{metric}"


def _model(label: str, spec: TableSpec) -> tuple[str, str | None]:
    found = paper_model("Qwen3.5-2B" if (spec.source, label) == ("Table 2", "Base") else label)
    if found is None:
        raise SeedFormatError(f"{spec.source}: row {label!r} is not a model of the paper (uta_tasks/paper/models.py)")
    return found.model, found.family


def table_cells(lines: list[str], spec: TableSpec) -> list[tuple[Cell, str]]:
    """The cells of one table with the printed text of each value.

    Args:
        lines: the seed text's lines (stripped).
        spec: the table.
    """
    out: list[tuple[Cell, str]] = []
    for label, nums in parse_rows(lines, spec):
        n_row = int(nums.pop(0)) if spec.n_column else None
        for col, printed in zip(spec.columns, nums):
            if spec.rows_are == "label":
                model, family, metric = col.printed, col.printed, f"label_{label}"
                n_docs: int | None = FAMILY_DOCS[col.printed]
            elif spec.rows_are == "slice":
                model, family, metric, n_docs = label, None, col.metric, n_row
            else:
                (model, family), metric = _model(label, spec), col.metric
                n_docs = N_DOCS[col.benchmark] if col.benchmark else None
            cell = Cell(_cell_id(spec.source, model, col.benchmark, col.perturbation, col.temperature, metric),
                        spec.source, label, col.printed, model, family, col.benchmark, col.perturbation,
                        col.temperature, metric, float(printed), col.unit,  # type: ignore[arg-type]
                        n_docs if col.unit == "%" else n_row, n_docs, "table")
            out.append((cell, printed))
    return out


def text_cells(summary: str, page: str = "") -> list[tuple[Cell, str]]:
    """The cells of :data:`TEXT_CELLS`, each checked against its seed text.

    Args:
        summary: the summary text most quotes come from.
        page: the paper's page text (quotes whose ``seed`` is ``page``).
    """
    flat = {"summary": " ".join(summary.split()), PAGE: " ".join(page.split())}
    out: list[tuple[Cell, str]] = []
    for tc in TEXT_CELLS:
        if " ".join(tc.quote.split()) not in flat[tc.seed]:
            raise SeedFormatError(f"{tc.source}: quote not in the {tc.seed} text: {tc.quote!r}")
        if tc.printed not in tc.quote:
            raise SeedFormatError(f"{tc.source}: {tc.printed} does not occur in its quote {tc.quote!r}")
        model: str = tc.model
        family: str | None = tc.model
        n_docs: int | None = FAMILY_DOCS.get(tc.model)
        if tc.source != "Table 6":  # Table 6's shares are pooled over a family
            found = paper_model(tc.model)
            model, family = (found.model, found.family) if found else (tc.model, None)
            n_docs = N_DOCS.get(tc.benchmark) if tc.benchmark else tc.n
        cell = Cell(_cell_id(tc.source, model, tc.benchmark, tc.perturbation, tc.temperature, tc.metric), tc.source,
                    tc.model, tc.metric, model, family, tc.benchmark, tc.perturbation, tc.temperature, tc.metric,
                    float(tc.printed), tc.unit, n_docs if tc.unit == "%" else None,  # type: ignore[arg-type]
                    n_docs, "text", tc.quote)
        out.append((cell, tc.printed))
    return out


def build(tables_text: str, summary_text: str, page_text: str = "") -> PaperReference:
    """The paper reference from the seed texts.

    Args:
        tables_text: the figures-and-tables text.
        summary_text: the summary text.
        page_text: the paper's page text.
    """
    lines = [line.strip() for line in tables_text.splitlines()]
    raw = [pair for spec in TABLES for pair in table_cells(lines, spec)] + text_cells(summary_text, page_text)
    ids = [c.id for c, _ in raw]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise SeedFormatError(f"duplicate cell ids: {dupes}")
    cells = add_notes(raw)
    prompts = ("followupeval-v2", "followupeval-v3", "followupeval-v4")
    return PaperReference("gpt-5.4-mini", prompts, "trace", tuple(cells),
                          (*REFERENCE_NOTES, *label_sums(cells)))


def render(reference: PaperReference) -> str:
    """The JSON text of ``cells_v1.json`` (stable: sorted keys, two-space indent).

    Args:
        reference: the reference.
    """
    return json.dumps(reference.to_dict(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Entry point: build and write the cells file; exit 2 when the seed text does not parse.

    Args:
        argv: arguments (default: ``sys.argv[1:]``).
    """
    p = argparse.ArgumentParser(prog="python -m uta_tasks.paper.build", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", type=Path, default=DEFAULT_TABLES, help="the paper's figures-and-tables text")
    p.add_argument("--summary", type=Path, default=DEFAULT_SUMMARY, help="the text holding the text-only numbers")
    p.add_argument("--page", type=Path, default=DEFAULT_PAGE, help="the paper's page text (Appendix D.1's numbers)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write the cells file")
    args = p.parse_args(argv)
    try:
        reference = build(args.tables.read_text(encoding="utf-8"), args.summary.read_text(encoding="utf-8"),
                          args.page.read_text(encoding="utf-8"))
    except (OSError, SeedFormatError) as exc:
        print(f"paper cells: {exc}", file=sys.stderr)
        return 2
    write_text(args.out, render(reference))
    print(f"{args.out}: {len(reference.cells)} cells")
    return 0


if __name__ == "__main__":
    sys.exit(main())
