"""The runs laid out in the paper's own tables, and the reference check against its cells.

* Table 1 (left): truncation, Full -> Trunc. per benchmark;
* Table 1 (right): appended question, Base -> +Question and % Changed;
* Tables 3 and 5: GSM8K accuracy and the follow-up rate on every benchmark;
* Fig. 3: task accuracy beside follow-up on GSM8K, GPQA Diamond and IFBench;
* Table 4 (Figs. 1 right and 4): the temperature sweep, one panel per data set;
* Table 6: label distribution pooled per family over the family's models (unperturbed tasks);
* the reference check: every published cell the runs measure, with a verdict.

A section with no data is left out.
"""

from __future__ import annotations

# A module import: uta_tasks.paper.reference reads ReportData from this package, so its names
# are looked up when a section is built, not when this module loads.
import uta_tasks.paper.reference as paper_reference
from uta_tasks.apps.report.tables import Table, rate_cell, share_cell, temp_text
from uta_tasks.paper.models import series_family
from uta_tasks.runs.collect import ReportData
from uta_tasks.runs.pooled import pool
from uta_tasks.schema import output
from uta_tasks.schema.labels import LABELS
from uta_tasks.stats.display import percent

# Benchmark names as the paper prints them.
PRINTED = {"gsm8k": "GSM8K", "ifeval": "IFEval", "ifbench": "IFBench", "gpqa_main": "GPQA Main",
           "gpqa_diamond": "GPQA Dia.", "healthbench": "HealthBench", "conversations": "conversations"}
FIG3_BENCHMARKS = ("gsm8k", "gpqa_diamond", "ifbench")
TRUNC, QUESTION = "trunc", "question"


def _printed(bench: str) -> str:
    return PRINTED.get(bench, bench)


def _benches(data: ReportData, perturbation: str) -> list[str]:
    return [b for b in data.benchmarks if any(r.benchmark == b and r.perturbation == perturbation for r in data.rows)]


def _value(data: ReportData, model: str, t: float | None, bench: str, pert: str, metric: str) -> str:
    row = data.find(model, t, bench, pert)
    return rate_cell(row.metric(metric)) if row else "—"


def table1_trunc(data: ReportData) -> Table | None:
    """Table 1 (left): follow-up rate after the full answer and after the truncated one.

    Args:
        data: the report data.
    """
    benches = _benches(data, TRUNC)
    if not benches:
        return None
    headers = ["Model", "T", *(f"{_printed(b)} {col}" for b in benches for col in ("Full", "Trunc."))]
    table = Table("paper-table1-trunc", "Paper Table 1 (left): truncation",
                  "Genuine follow-up rate (%) after the full answer (u_ref, the same docs) and after the truncated "
                  f"answer, {data.settings.confidence:.0%} Wilson interval in brackets.", headers)
    for model, t in data.series:
        cells = [c for b in benches for c in (_value(data, model, t, b, TRUNC, output.GENUINE_BASE),
                                              _value(data, model, t, b, TRUNC, output.GENUINE))]
        if any(c != "—" for c in cells):
            table.rows.append([model, temp_text(t), *cells])
    return table


def table1_question(data: ReportData) -> Table | None:
    """Table 1 (right): Base -> +Question and the share of user turns that changed.

    Args:
        data: the report data.
    """
    rows = [r for r in data.rows if r.perturbation == QUESTION]
    if not rows:
        return None
    table = Table("paper-table1-question", "Paper Table 1 (right): appended question",
                  "Base: follow-up rate (%) after the unperturbed answer; +Question: after the answer with a generic "
                  "question appended; % Changed: share of user turns whose text differs from the unperturbed one.",
                  ["Model", "T", "Benchmark", "Base", "+Question", "% Changed"])
    for r in rows:
        table.rows.append([r.model, temp_text(r.temperature), _printed(r.benchmark),
                           rate_cell(r.metric(output.GENUINE_BASE)), rate_cell(r.metric(output.GENUINE)),
                           rate_cell(r.metric(output.SHARE_CHANGED))])
    return table


def tables_3_5(data: ReportData) -> Table | None:
    """Tables 3 and 5: GSM8K accuracy and the follow-up rate per benchmark (unperturbed tasks).

    Args:
        data: the report data.
    """
    benches = _benches(data, output.PERTURBATION_NONE)
    if not benches:
        return None
    acc = ["GSM8K Acc."] if "gsm8k" in benches else []
    table = Table("paper-tables35", "Paper Tables 3 and 5: accuracy and follow-up per benchmark",
                  "GSM8K answer accuracy (%) and genuine follow-up rate (%) on every benchmark, "
                  f"{data.settings.confidence:.0%} Wilson interval in brackets.",
                  ["Model", "T", *acc, *(_printed(b) for b in benches)])
    for model, t in data.series:
        cells = [_value(data, model, t, "gsm8k", output.PERTURBATION_NONE, output.ACCURACY)] if acc else []
        cells += [_value(data, model, t, b, output.PERTURBATION_NONE, output.GENUINE) for b in benches]
        if any(c != "—" for c in cells):
            table.rows.append([model, temp_text(t), *cells])
    return table


def fig3(data: ReportData) -> Table | None:
    """Fig. 3: task accuracy beside follow-up rate on GSM8K, GPQA Diamond and IFBench.

    Args:
        data: the report data.
    """
    benches = [b for b in FIG3_BENCHMARKS if b in _benches(data, output.PERTURBATION_NONE)]
    if not benches:
        return None
    table = Table("paper-fig3", "Paper Fig. 3: task accuracy vs follow-up rate",
                  "Top row of the figure: task accuracy (%); bottom row: genuine follow-up rate (%).",
                  ["Model", "T", *(f"{_printed(b)} {k}" for k in ("accuracy", "follow-up") for b in benches)])
    for model, t in data.series:
        cells = [_value(data, model, t, b, output.PERTURBATION_NONE, m)
                 for m in (output.ACCURACY, output.GENUINE) for b in benches]
        if any(c != "—" for c in cells):
            table.rows.append([model, temp_text(t), *cells])
    return table


def table4(data: ReportData) -> Table | None:
    """Table 4 (Figs. 1 right and 4): the rate per temperature, one panel of columns per data set.

    Args:
        data: the report data.
    """
    temps = data.temperatures
    if len(temps) < 2:
        return None
    benches = _benches(data, output.PERTURBATION_NONE)
    table = Table("paper-table4", "Paper Table 4 and Figs. 1 (right), 4: temperature sweep",
                  "Genuine follow-up rate (%) at each sampling temperature, one panel of columns per data set.",
                  ["Model", *(f"{_printed(b)} T={temp_text(t)}" for b in benches for t in temps)])
    for model in dict.fromkeys(m for m, _ in data.series):
        cells = [_value(data, model, t, b, output.PERTURBATION_NONE, output.GENUINE) for b in benches for t in temps]
        if any(c != "—" for c in cells):
            table.rows.append([model, *cells])
    return table


def table6(data: ReportData, families: dict[str, str] | None = None) -> Table | None:
    """Table 6: each label's share of the judged user turns, pooled per family over its models.

    Args:
        data: the report data.
        families: ``MODEL=FAMILY`` overrides.
    """
    rows = [r for r in data.rows if r.perturbation == output.PERTURBATION_NONE]
    if not rows:
        return None
    keys = list(dict.fromkeys((series_family(r.model, r.model_id, families), r.temperature) for r in rows))
    several = len({t for _, t in keys}) > 1
    pooled = {k: [r for r in rows if (series_family(r.model, r.model_id, families), r.temperature) == k] for k in keys}
    n = {k: pool(v, output.label_metric(LABELS[0]), data.settings.confidence).n for k, v in pooled.items()}
    headers = ["Primary Label", *(f"{fam}{f' T={temp_text(t)}' if several else ''} (%) n={n[(fam, t)]}"
                                  for fam, t in keys)]
    models: dict[str, set[str]] = {}
    for (fam, _), fam_rows in pooled.items():
        models.setdefault(fam, set()).update(r.model for r in fam_rows)
    members = "; ".join(f"{fam}: {', '.join(sorted(ms))}" for fam, ms in models.items())
    table = Table("paper-table6", "Paper Table 6: label distribution per family",
                  f"Share of judged user turns per primary label (%), pooled over the family's models and the "
                  f"unperturbed tasks ({members}).", headers)
    for label in LABELS:
        metric = output.label_metric(label)
        table.rows.append([label, *(percent(pool(pooled[k], metric, data.settings.confidence).value) for k in keys)])
    return table


def _check_row(c: paper_reference.Check) -> list[str]:
    temp = "—" if c.cell.temperature is None else temp_text(c.cell.temperature)
    return [c.cell.source, c.run_model, c.task, c.cell.metric, temp, f"{c.cell.value:.1f}",
            share_cell(c.value, c.low, c.high),
            "—" if c.n is None else str(c.n), c.verdict, c.reason, " ".join(c.cell.notes) or "—"]


def reference(data: ReportData, families: dict[str, str] | None = None, tolerance_pp: float = 0.0) -> Table | None:
    """The reference check: every published cell the runs measure, with its verdict.

    Args:
        data: the report data.
        families: ``MODEL=FAMILY`` overrides.
        tolerance_pp: percentage points the run's interval is widened by.
    """
    checks = paper_reference.check_reference(data, tolerance_pp, families)
    if not checks:
        return None
    widened = f", widened by {tolerance_pp:g} pp" if tolerance_pp else ""
    return Table("paper-reference", "Reference check against the paper",
                 "Every published cell (uta_tasks/paper/cells_v1.json) whose model, benchmark, perturbation and "
                 f"temperature a run matches: the paper's value, the run's with its {data.settings.confidence:.0%} "
                 f"interval{widened} (Wilson; paired bootstrap for differences), and the verdict. Not comparable: "
                 "another judge model or prompt version, another pass2_context, or another N.",
                 ["Source", "Model", "Task", "Metric", "T", "Paper %", "Run %", "n", "Verdict", "Reason",
                  "Paper notes"], [_check_row(c) for c in checks])


def paper_tables(data: ReportData, families: dict[str, str] | None = None, tolerance_pp: float = 0.0) -> list[Table]:
    """Every paper section that has data, in the paper's order, then the reference check.

    Args:
        data: the report data.
        families: ``MODEL=FAMILY`` overrides.
        tolerance_pp: tolerance of the reference check.
    """
    found = [table1_trunc(data), table1_question(data), tables_3_5(data), fig3(data), table4(data),
             table6(data, families), reference(data, families, tolerance_pp)]
    return [t for t in found if t is not None]
