"""The paper's published cells as data (``cells_v1.json``), and how a cell is looked up.

Each cell is one number the paper publishes: where (table or figure), for which model,
benchmark, perturbation and temperature, which metric, its value as printed, and the
denominator behind it where the data set's size gives one. Notes record what the paper
itself leaves inconsistent; they are never resolved silently. The file is written by
``python -m uta_tasks.paper.build`` from the seed text of the paper.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

CELLS_FILE = "cells_v1.json"
CELLS_SCHEMA = "uta-paper-cells/1"

Unit = Literal["%", "kappa", "r"]
Origin = Literal["table", "text", "derived"]

# Metrics of cells that are not rates of a run (judge agreement, Appendix D and Table 7).
GENUINE_AGREEMENT = "genuine_agreement"
GENUINE_KAPPA = "genuine_kappa"
LABEL_AGREEMENT = "label_agreement"
LABEL_KAPPA = "label_kappa"
GENUINE_SHARE = "genuine_share"
# Appendix D.1: a model's rate under the nano judge (the mini judge's is ``genuine_followup``), and the
# correlations of file-level rates between the two judges.
GENUINE_FOLLOWUP_NANO = "genuine_followup_nano_judge"
RATE_PEARSON = "rate_pearson"
RATE_SPEARMAN = "rate_spearman"


@dataclass(frozen=True)
class Cell:
    """One published number.

    Attributes:
        id: stable id, e.g. ``table5/openai/gpt-oss-20b/gpqa_diamond/none/T0/genuine_followup``.
        source: ``Table 1`` .. ``Table 7``, ``Fig. 1``, ``Fig. 3``, ``Appendix D.1`` ...
        row: the row as printed (model, label or slice).
        column: the column as printed.
        model: Hugging Face id (the paper's name when none exists); a family for Table 6;
            the judge (pair) for agreement cells.
        family: the model's family.
        benchmark: the package's benchmark name (``coval`` is the paper's, not packaged), or None.
        perturbation: ``none``, ``trunc`` or ``question``.
        temperature: sampling temperature of model under test and user turn (None when n/a).
        metric: the package's metric name (``genuine_followup``, ``genuine_followup_base``,
            ``accuracy``, ``share_changed``, ``label_<label>``) or an agreement metric.
        value: the number as printed (percent for ``%``).
        unit: ``%``, ``kappa`` or ``r`` (a correlation coefficient).
        n: the denominator behind the value where it can be derived, else None.
        n_docs: documents of the benchmark (or pooled benchmarks) the paper evaluated.
        origin: ``table`` (the paper's table text), ``text`` (a sentence of the paper) or ``derived``
            (a difference of two cells, made by the reference check; never in the file).
        quote: for ``text`` cells, the sentence the number is taken from.
        notes: the paper's inconsistencies that concern this cell.
    """

    id: str
    source: str
    row: str
    column: str
    model: str
    family: str | None
    benchmark: str | None
    perturbation: str
    temperature: float | None
    metric: str
    value: float
    unit: Unit
    n: int | None
    n_docs: int | None
    origin: Origin
    quote: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        out = asdict(self)
        out["notes"] = list(self.notes)
        return out

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Cell:
        """The cell of a dict written by :meth:`to_dict`.

        Args:
            raw: the dict.
        """
        return cls(**{**raw, "notes": tuple(raw.get("notes") or ())})


@dataclass(frozen=True)
class PaperReference:
    """The paper's settings and cells.

    Attributes:
        judge_model: the judge the paper's tables use.
        judge_prompts: the package's prompt versions written to the paper's judge criteria.
        pass2_context: the paper's pass-2 procedure (``trace``).
        cells: every published cell.
        notes: notes on the paper as a whole.
    """

    judge_model: str
    judge_prompts: tuple[str, ...]
    pass2_context: str
    cells: tuple[Cell, ...]
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``cells_v1.json``."""
        return {"schema": CELLS_SCHEMA, "judge_model": self.judge_model, "judge_prompts": list(self.judge_prompts),
                "pass2_context": self.pass2_context, "notes": list(self.notes),
                "cells": [c.to_dict() for c in self.cells]}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> PaperReference:
        """Read the JSON document.

        Args:
            raw: the parsed ``cells_v1.json``.
        """
        if raw.get("schema") != CELLS_SCHEMA:
            raise ValueError(f"paper cells: schema {raw.get('schema')!r}, expected {CELLS_SCHEMA!r}")
        return cls(raw["judge_model"], tuple(raw["judge_prompts"]), raw["pass2_context"],
                   tuple(Cell.from_dict(c) for c in raw["cells"]), tuple(raw.get("notes") or ()))


@lru_cache(maxsize=1)
def load_reference() -> PaperReference:
    """The packaged ``cells_v1.json``."""
    text = resources.files("uta_tasks.paper").joinpath(CELLS_FILE).read_text(encoding="utf-8")
    return PaperReference.from_dict(json.loads(text))
