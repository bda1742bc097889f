"""The notes of the paper's cells: what the paper leaves inconsistent, never resolved silently.

* the same quantity published twice with different values (Table 1 "Full" vs Table 5 at
  T = 0, Table 2 "Base" vs Table 3, Table 1's right-panel "Base" vs Table 5);
* a rate that no ``k / n_docs`` rounds to, with the denominator every rate of that benchmark
  and table fits: the largest below ``n_docs`` (Coval: k/93, not k/100), else a multiple of
  ``n_docs`` (Fig. 3's GPQA accuracies: k/396), else the range searched in vain;
* a rate that does fit ``n_docs`` while others of its table do not, with its ``k``;
* Table 6's label sums, with the text's ``plausible_followup`` shares and what is left for
  ``other``; a figure caption that its own numbers contradict.

Every arithmetic claim of a note is recomputed by ``tests/paper/test_paper_notes.py``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from uta_tasks.paper.cells import Cell
from uta_tasks.paper.models import GPT_OSS

_RATE, _BASE, _ACC = "genuine_followup", "genuine_followup_base", "accuracy"


def _precision(printed: str) -> float:
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    return 0.5 * 10 ** -decimals + 1e-9


def fits(printed: str, n: int) -> bool:
    """Whether some ``k / n`` (as a percentage) rounds to the printed value.

    Args:
        printed: the value as printed, e.g. ``19.4``.
        n: the denominator.
    """
    value = float(printed)
    k = round(value * n / 100.0)
    return any(abs(100.0 * j / n - value) <= _precision(printed) for j in (k - 1, k, k + 1) if 0 <= j <= n)


def _quantity(cell: Cell) -> tuple | None:
    """What a cell measures, so that two cells of the same quantity can be compared."""
    if cell.benchmark is None or cell.family == cell.model:
        return None
    if (cell.perturbation, cell.metric) in {("none", _RATE), ("trunc", _BASE), ("question", _BASE)}:
        what = "unperturbed genuine follow-up rate"
    elif cell.metric == _ACC:
        what = "accuracy"
    else:
        what = f"{cell.perturbation} {cell.metric}"
    return cell.model, cell.benchmark, cell.temperature, what


def _where(cell: Cell) -> str:
    return f"{cell.source} ({cell.row}, {cell.column})"


def add_notes(cells: list[tuple[Cell, str]]) -> list[Cell]:
    """The cells with notes on duplicate quantities that disagree and on denominators.

    Args:
        cells: cells with their printed values.
    """
    notes: dict[str, list[str]] = defaultdict(list)
    by_quantity: dict[tuple, list[Cell]] = defaultdict(list)
    for cell, _ in cells:
        key = _quantity(cell)
        if key is not None:
            by_quantity[key].append(cell)
    for (model, bench, t, what), group in by_quantity.items():
        if len({c.value for c in group}) < 2:
            continue
        listed = "; ".join(f"{_where(c)}: {c.value}" for c in group)
        for c in group:
            notes[c.id].append(f"The paper gives the {what} of {model} on {bench} at T={t:g} differently: {listed}.")
    n_of: dict[str, int | None] = {}
    by_table_bench: dict[tuple[str, str, str], list[tuple[Cell, str]]] = defaultdict(list)
    for cell, printed in cells:
        if cell.unit == "%" and cell.n is not None and cell.benchmark is not None:
            by_table_bench[(cell.source, cell.benchmark, cell.metric)].append((cell, printed))
    for (source, bench, metric), printed_group in by_table_bench.items():
        n_docs = printed_group[0][0].n_docs or 0
        if len(printed_group) < 2 or all(fits(p, n_docs) for _, p in printed_group):
            continue
        n_fit = common_denominator([p for _, p in printed_group], n_docs)
        what = f"every {source} {metric} on {bench}"
        fitted = (f"{what} is k/{n_fit}" if n_fit else
                  f"no denominator from {_lowest(n_docs)} to {n_docs - 1} or multiple of {n_docs} up to "
                  f"{_MULTIPLES * n_docs} fits {what}")
        for cell, printed in printed_group:
            n_of[cell.id] = n_fit if n_fit and n_fit < n_docs and cell.metric == _RATE else None
            if fits(printed, n_docs):
                notes[cell.id].append(f"{printed}% is {_k(printed, n_docs)}/{n_docs}, but not every {source} "
                                      f"{metric} on {bench} is k/{n_docs}: {fitted}.")
            else:
                notes[cell.id].append(f"{printed}% is not k/{n_docs} for any k ({n_docs} documents): {fitted}.")
    out = []
    for cell, printed in cells:
        if cell.unit == "%" and cell.n is not None and cell.id not in n_of and not fits(printed, cell.n):
            notes[cell.id].append(f"{printed}% is not k/{cell.n} for any k.")
            n_of[cell.id] = None
        notes[cell.id].extend(_caption_notes(cell, cells))
        out.append(replace(cell, n=n_of.get(cell.id, cell.n), notes=tuple(notes[cell.id])))
    return out


_MULTIPLES = 4


def _lowest(n_docs: int) -> int:
    return int(n_docs * 0.8) + 1


def _k(printed: str, n: int) -> int:
    """The ``k`` whose ``k / n`` rounds to the printed value (the nearest one)."""
    value = float(printed)
    return min((j for j in range(n + 1) if abs(100.0 * j / n - value) <= _precision(printed)),
               key=lambda j: abs(100.0 * j / n - value))


def common_denominator(printed: list[str], n_docs: int) -> int | None:
    """The denominator every printed rate fits: the largest from 80% of ``n_docs`` up to ``n_docs - 1``
    (documents dropped), else the smallest multiple of ``n_docs`` up to 4x (several samples a document).

    Args:
        printed: the values as printed.
        n_docs: the benchmark's documents.
    """
    candidates = [*range(n_docs - 1, _lowest(n_docs) - 1, -1), *(m * n_docs for m in range(2, _MULTIPLES + 1))]
    return next((n for n in candidates if all(fits(p, n) for p in printed)), None)


# Fig. 3's caption: "gpt-oss models produce the highest follow-up on GPQA despite lower accuracy than ..."
_FIG3_CLAIM = "despite lower accuracy than Qwen3.5 or GLM-4.7"


def _caption_notes(cell: Cell, cells: list[tuple[Cell, str]]) -> tuple[str, ...]:
    """Fig. 3's caption against its own GPQA Diamond accuracies: a gpt-oss model above another family."""
    if (cell.source, cell.benchmark, cell.metric) != ("Fig. 3", "gpqa_diamond", _ACC):
        return ()
    fig3 = [c for c, _ in cells if (c.source, c.benchmark, c.metric) == ("Fig. 3", "gpqa_diamond", _ACC)]
    pairs = [(g, o) for g in fig3 if g.family == GPT_OSS for o in fig3 if o.family != GPT_OSS and g.value > o.value]
    return tuple(f"Fig. 3's caption says gpt-oss has lower GPQA accuracy (\"{_FIG3_CLAIM}\"), but {g.row}'s "
                 f"{g.value}% is above {o.row}'s {o.value}%." for g, o in pairs if cell in (g, o))


def label_sums(cells: list[Cell]) -> tuple[str, ...]:
    sums: dict[str, float] = defaultdict(float)
    followup: dict[str, float] = {}
    for c in cells:
        if c.source == "Table 6" and c.origin == "table":
            sums[c.model] += c.value
        elif c.source == "Table 6" and c.metric == "label_plausible_followup":
            followup[c.model] = c.value
    return tuple(f"Table 6: the printed labels of {fam} sum to {total:.1f}%; with plausible_followup at "
                 f"{followup[fam]:.1f}% (the summary) that leaves {100 - total - followup[fam]:.1f}% for other."
                 for fam, total in sums.items())
