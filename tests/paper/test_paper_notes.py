"""Every arithmetic claim in a note of the packaged paper cells is recomputed here: a note that a
value is k/N is checked, a note that no k/N fits is proven over every k, a common denominator is
checked against every cell it speaks for, and a denominator search that found none is repeated."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from uta_tasks.paper.cells import Cell, load_reference
from uta_tasks.paper.notes import common_denominator, fits

NOT_FIT = re.compile(r"^(?P<v>\d+\.\d+)% is not k/(?P<n>\d+) for any k")
IS_FIT = re.compile(r"^(?P<v>\d+\.\d+)% is (?P<k>\d+)/(?P<n>\d+),")
EVERY = re.compile(r": every (?P<source>.+?) (?P<metric>\w+) on (?P<bench>\w+) is k/(?P<n>\d+)\.$")
NONE_FITS = re.compile(r"no denominator from (?P<lo>\d+) to (?P<hi>\d+) or multiple of (?P<n>\d+) up to (?P<top>\d+)")
SUMS = re.compile(r"^Table 6: the printed labels of (?P<fam>.+?) sum to (?P<sum>\d+\.\d)%; with plausible_followup at "
                  r"(?P<pf>\d+\.\d)% \(the summary\) that leaves (?P<rest>-?\d+\.\d)% for other\.$")
CAPTION = re.compile(r"but (?P<a>.+?)'s (?P<va>\d+\.\d)% is above (?P<b>.+?)'s (?P<vb>\d+\.\d)%\.$")

CELLS = load_reference().cells


def _printed(value: float) -> str:
    return f"{value:.1f}"


def _no_k_fits(value: str, n: int) -> bool:
    """Proof by exhaustion: no k in 0..n rounds (half up or half even) to the printed value."""
    return all(round(100 * k / n, 1) != float(value) and f"{100 * k / n:.1f}" != value for k in range(n + 1))


def _group(source: str, metric: str, bench: str) -> list[Cell]:
    return [c for c in CELLS if (c.source, c.metric, c.benchmark) == (source, metric, bench)]


def _notes() -> list[tuple[Cell, str]]:
    return [(cell, note) for cell in CELLS for note in cell.notes]


def test_every_note_is_one_the_checks_below_read():
    known = (NOT_FIT, IS_FIT, CAPTION)
    for cell, note in _notes():
        assert any(p.search(note) for p in known) or note.startswith("The paper gives the "), (cell.id, note)


@pytest.mark.parametrize(("cell", "note"), [(c, n) for c, n in _notes() if NOT_FIT.search(n)],
                         ids=lambda x: x.id if isinstance(x, Cell) else "")
def test_a_value_said_not_to_be_k_over_n_is_not(cell, note):
    m = NOT_FIT.search(note)
    assert m["v"] == _printed(cell.value)
    assert _no_k_fits(m["v"], int(m["n"])) and not fits(m["v"], int(m["n"]))


@pytest.mark.parametrize(("cell", "note"), [(c, n) for c, n in _notes() if IS_FIT.search(n)],
                         ids=lambda x: x.id if isinstance(x, Cell) else "")
def test_a_value_said_to_be_k_over_n_is(cell, note):
    m = IS_FIT.search(note)
    assert m["v"] == _printed(cell.value) and f"{100 * int(m['k']) / int(m['n']):.1f}" == m["v"]


def test_a_common_denominator_fits_every_cell_it_speaks_for_and_none_larger_below_n_docs():
    claims = {(m["source"], m["metric"], m["bench"], int(m["n"])) for _, n in _notes() if (m := EVERY.search(n))}
    assert ("Table 2", "genuine_followup", "coval", 93) in claims
    assert ("Fig. 3", "accuracy", "gpqa_diamond", 396) in claims
    for source, metric, bench, n in claims:
        group = _group(source, metric, bench)
        assert len(group) >= 2 and all(not _no_k_fits(_printed(c.value), n) for c in group), (source, bench, n)
        n_docs = group[0].n_docs or 0
        larger = range(n + 1, n_docs) if n < n_docs else range(n_docs - 1, int(n_docs * 0.8), -1)
        assert not any(all(not _no_k_fits(_printed(c.value), m) for c in group) for m in larger), (source, bench)
        assert common_denominator([_printed(c.value) for c in group], n_docs) == n


def test_a_search_that_found_no_denominator_is_repeated():
    for cell, note in _notes():
        m = NONE_FITS.search(note)
        if m:
            group = [_printed(c.value) for c in CELLS if c.source == cell.source and c.metric == cell.metric
                     and c.benchmark == cell.benchmark]
            n = int(m["n"])
            tried = [*range(int(m["lo"]), int(m["hi"]) + 1), *range(2 * n, int(m["top"]) + 1, n)]
            assert not any(all(not _no_k_fits(v, d) for v in group) for d in tried)


def test_table6_sums_and_what_they_leave_for_other():
    printed: dict[str, float] = defaultdict(float)
    for c in CELLS:
        if c.source == "Table 6" and c.origin == "table":
            printed[c.model] += c.value
    followup = {c.model: c.value for c in CELLS if c.metric == "label_plausible_followup"}
    seen = set()
    for note in load_reference().notes:
        m = SUMS.search(note)
        if m:
            fam = m["fam"]
            assert f"{printed[fam]:.1f}" == m["sum"] and f"{followup[fam]:.1f}" == m["pf"]
            assert f"{100 - printed[fam] - followup[fam]:.1f}" == m["rest"]
            seen.add(fam)
    assert seen == {"Qwen3.5", "gpt-oss", "GLM-4.7"}
    assert all(100 - printed[f] - followup[f] <= 0.2 + 1e-9 for f in seen)  # other: almost never used


def test_the_fig3_caption_note_compares_the_printed_accuracies():
    notes = [(c, m) for c, n in _notes() if (m := CAPTION.search(n))]
    assert notes
    acc = {c.row: c.value for c in _group("Fig. 3", "accuracy", "gpqa_diamond")}
    for _, m in notes:
        assert acc[m["a"]] == float(m["va"]) > float(m["vb"]) == acc[m["b"]]
    assert {(m["a"], m["b"]) for _, m in notes} == {("gpt-oss-120b", "GLM-4.7")}


def test_the_duplicate_quantity_notes_list_the_cells_values():
    for cell, note in _notes():
        if note.startswith("The paper gives the "):
            listed = [float(v) for v in re.findall(r": (\d+\.\d+)(?=[;.])", note.split(" differently: ", 1)[1])]
            assert cell.value in listed and len(set(listed)) >= 2, (cell.id, note)
