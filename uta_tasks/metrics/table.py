"""The one table of every metric a uta task reports: a metric is one function and one row.

Each row (:class:`MetricSpec`) says the metric's name, its function of a doc's records
(:mod:`uta_tasks.metrics.values`), how it is aggregated over docs, its direction, when a
task reports it and whether it needs the judge, what it means, the report table that shows
it and how, and whether lm-eval's table shows it by default. Everything else is generated
from the rows: :func:`uta_tasks.metrics.results.measure` runs the functions, live for
lm-eval and again on logged samples for every reader (``uta-summary``, the report, the
gate, ``uta-rejudge``), so the two cannot differ; the task's ``process_results``,
``aggregation()``, ``higher_is_better()`` and the ``metric_list`` lm-eval dumps with the
results (:mod:`uta_tasks.lm_eval_compat.metric_rows`); the report's per-section tables; the
gate's check of a regression rule's direction; and the manual's table (docs/metrics.md,
checked by a test).

Accuracy metrics come from the benchmark (``uta_tasks.datasets``); they are added in front
of the probe's own rows.

**Headline rows.** A row with ``headline=True`` is in lm-eval's results (and its printed
table) by default: the benchmark's accuracy metrics and :data:`HEADLINE`. Every other row
is computed only with the ``metrics: full`` task setting; the logged samples hold
everything needed to compute it later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from uta_tasks.metrics import values as v
from uta_tasks.metrics.aggregate import SkippingDropped, mean, nanmean, total
from uta_tasks.metrics.sections import Section, ShownAs
from uta_tasks.schema import output
from uta_tasks.schema.labels import LABELS


@dataclass(frozen=True)
class TaskShape:
    """What decides which metrics a task reports.

    Attributes:
        perturbation: ``none``, ``trunc`` or ``question``.
        judged: whether the judge runs (it is off with ``judge: none`` or ``--predict_only``).
        held_out: whether the data gives the assistant turn and a real next user turn.
        primary: the benchmark's correctness metric, None when held-out.
        drops_overlong: ``overlong: drop``: accuracy leaves out the dropped docs.
        user_samples: user turns drawn per answer (``user_samples``).
        pass_at: the k of the ``genuine_pass_at_<k>`` metrics (``pass_at_k``).
        headline_only: report only the headline rows (the ``metrics: headline`` setting).
    """

    perturbation: str
    judged: bool
    held_out: bool
    primary: str | None
    drops_overlong: bool = False
    user_samples: int = 1
    pass_at: tuple[int, ...] = ()
    headline_only: bool = False

    @property
    def perturbed(self) -> bool:
        """True for ``trunc`` and ``question``."""
        return self.perturbation != "none"


@dataclass(frozen=True)
class MetricSpec:
    """One metric: everything every consumer of it reads (lm-eval's results, ``uta-summary``,
    the gate, the report, docs/metrics.md).

    Attributes:
        name: the key in results (``<name>,none``) and in ``summary.json``.
        aggregation: how per-doc values are aggregated over docs
            (:mod:`uta_tasks.metrics.aggregate`).
        aggregation_name: how the dumped ``metric_list`` and docs/metrics.md name it.
        higher_is_better: the direction: lm-eval's flag, and which regression the gate's
            ``max_drop`` (higher is better) or ``max_rise`` (lower is better) guards.
        applies: whether a task of this shape reports it (judge aside: :attr:`needs_judge`).
        meaning: one line for the manual's table.
        needs_judge: computed from verdicts: reported only when the judge runs.
        section: the report table that shows it (:data:`uta_tasks.metrics.sections.SECTIONS`);
            None for the benchmark's accuracy rows (the report's headline table).
        shown_as: ``percent`` (a share in [0, 1]) or ``count``.
        headline: in lm-eval's results and printed table by default (else only with
            ``metrics: full``); its place there is its place in :data:`PROBE_METRICS`.
        value: a doc's value from its records (:mod:`uta_tasks.metrics.values`).
        units: instead of ``value``, a doc's units of a share from its records: the doc's
            value is their mean (a count's: their sum), and the units are the observations
            behind the metric's Wilson interval (:attr:`observed_as`).
            Neither for the benchmark's accuracy rows (its scorer gives them) and
            ``overlong`` (the records dropped before any other metric).
    """

    name: str
    aggregation: Callable[[list], float]
    aggregation_name: str
    higher_is_better: bool
    applies: Callable[[TaskShape], bool]
    meaning: str
    needs_judge: bool = False
    section: Section | None = "generation"
    shown_as: ShownAs = "percent"
    headline: bool = False
    value: Callable[[v.Doc], float] | None = None
    units: Callable[[v.Doc], v.Units] | None = None

    @property
    def count(self) -> bool:
        """True for a count (summed over docs)."""
        return self.aggregation_name == "sum"

    @property
    def observed_as(self) -> str:
        """The name of the share its units give (a rate: its own; a count ``x``: ``x_share``)."""
        return f"{self.name}_share" if self.count else self.name

    @property
    def lm_eval_mean(self) -> bool:
        """Handed to lm-eval as lm-eval's own ``mean`` (a rate, or a benchmark's plain mean),
        so that lm-eval gives it a closed-form standard error."""
        return self.aggregation is nanmean or self.aggregation is mean

    def reported(self, shape: TaskShape) -> bool:
        """Whether a task of this shape reports it.

        Args:
            shape: the task's shape.
        """
        return self.applies(shape) and (shape.judged or not self.needs_judge)


Applies = Callable[[TaskShape], bool]


def always(shape: TaskShape) -> bool:
    """Every task."""
    return True


def perturbed(shape: TaskShape) -> bool:
    """``trunc`` and ``question`` tasks."""
    return shape.perturbed


def truncated(shape: TaskShape) -> bool:
    """``trunc`` tasks."""
    return shape.perturbation == "trunc"


def sampled_users(shape: TaskShape) -> bool:
    """Tasks with ``user_samples`` > 1."""
    return shape.user_samples > 1


def held_out(shape: TaskShape) -> bool:
    """Held-out tasks (the data gives the assistant turn and a real next user turn)."""
    return shape.held_out


def with_accuracy(shape: TaskShape) -> bool:
    """Tasks whose benchmark has a correctness metric."""
    return shape.primary is not None


def generated(shape: TaskShape) -> bool:
    """Tasks whose assistant turn the model generates (not held-out)."""
    return not shape.held_out


def _share(name: str, units: Callable[[v.Doc], v.Units], meaning: str, *, needs_judge: bool, section: Section,
           applies: Applies = always, higher: bool = True, headline: bool = False) -> MetricSpec:
    """A share of units (judged turns, docs), with a Wilson interval in the summary."""
    return MetricSpec(name, nanmean, "nanmean", higher, applies, meaning, needs_judge, section, "percent", headline,
                      units=units)


def _rate(name: str, value: Callable[[v.Doc], float], meaning: str, *, needs_judge: bool, section: Section,
          applies: Applies = always, higher: bool = True, headline: bool = False) -> MetricSpec:
    """A per-doc value in [0, 1] averaged over docs, with lm-eval's standard error."""
    return MetricSpec(name, nanmean, "nanmean", higher, applies, meaning, needs_judge, section, "percent", headline,
                      value=value)


def _count(name: str, value: Callable[[v.Doc], float], meaning: str, *, needs_judge: bool, section: Section,
           applies: Applies = always) -> MetricSpec:
    """A per-doc count summed over docs (lower is better)."""
    return MetricSpec(name, total, "sum", False, applies, meaning, needs_judge, section, "count", value=value)


def _judge(name: str, value: Callable[[v.Doc], float], meaning: str, applies: Applies = always) -> MetricSpec:
    """A count of verdicts or of judge usage."""
    return _count(name, value, meaning, needs_judge=True, section="judging", applies=applies)


PROBE_METRICS: tuple[MetricSpec, ...] = (
    _share("share_changed", v.share_changed,
           "share of docs whose u differs in text from u_ref (NaN when sampled, T > 0)",
           needs_judge=False, section="generation", applies=perturbed, headline=True),
    _count("trunc_emptied", v.trunc_emptied, "docs whose final answer had 25 tokens or fewer, so a' has no final answer",
           needs_judge=False, section="generation", applies=truncated),
    _rate("answer_incomplete", v.answer_incomplete,
          "share of answers whose reasoning never closed or that hit the token budget (scored wrong)",
          needs_judge=False, section="generation", applies=generated, higher=False),
    MetricSpec("overlong", total, "sum", False, always,
               "docs dropped because a prompt did not fit the model (overlong: drop)", shown_as="count"),
    _share("genuine_followup", v.genuine, "share of judged user turns u that are genuine follow-ups",
           needs_judge=True, section="followup", headline=True),
    _rate("genuine_followup_complete", v.genuine_complete, "genuine_followup over complete answers only",
          needs_judge=True, section="followup", applies=generated),
    _share("genuine_pass_at_k", v.genuine_pass_at_n,
           "unbiased pass@k at k = n: with `user_samples` n > 1, the chance that one of the n user turns after "
           "the same a' is genuine, 1 - C(n-c, n)/C(n, n); else the share of docs with a genuine u over the repeats",
           needs_judge=True, section="followup"),
    _rate("genuine_prob", v.genuine_prob,
          "`user_samples` > 1: per doc, the share of genuine turns among its judged user samples",
          needs_judge=True, section="followup", applies=sampled_users),
    *(
        _share(f"label_{label}", v.label_share(label), f"share of judged u labelled {label}",
               needs_judge=True, section="labels", higher=label == "plausible_followup")
        for label in LABELS
    ),
    MetricSpec("unjudged", total, "sum", False, always, "user turns (u, u_ref, reference) without a valid verdict",
               needs_judge=True, section="judging", shown_as="count", headline=True, units=v.unjudged),
    _judge("n_judged", v.n_judged, "user turns u with a verdict (the denominator of genuine_followup)"),
    _judge("n_unjudged", v.n_unjudged, "user turns u without a valid verdict"),
    _judge("n_judged_base", v.n_judged_base, "u_ref turns with a verdict", perturbed),
    _judge("n_unjudged_base", v.n_unjudged_base, "u_ref turns without a valid verdict", perturbed),
    _judge("n_judged_reference", v.n_judged_reference, "real next user turns with a verdict", held_out),
    _judge("n_unjudged_reference", v.n_unjudged_reference, "real next user turns without a valid verdict", held_out),
    _judge("judge_calls", v.judge_usage("calls"), "judge requests sent (retries included)"),
    _judge("judge_cache_hits", v.judge_usage("cache_hits"), "verdicts read from the judge cache"),
    _judge("judge_calls_saved", v.judge_calls_saved,
           "user turns labelled by a pre-label rule (`judge_prelabel`) instead of a judge request"),
    _judge("judge_input_tokens", v.judge_usage("input_tokens"), "judge prompt tokens"),
    _judge("judge_output_tokens", v.judge_usage("output_tokens"), "judge completion tokens"),
    _share("genuine_followup_base", v.genuine_base,
           "genuine rate of u_ref (after the unperturbed answer), on the repeats where u is judged too",
           needs_judge=True, section="followup", applies=perturbed, headline=True),
    _rate("genuine_followup_diff", v.genuine_diff, "perturbed minus base genuine rate, per doc, paired",
          needs_judge=True, section="followup", applies=perturbed, headline=True),
    _share("genuine_followup_reference", v.genuine_reference, "genuine rate of the real next user turn (held-out)",
           needs_judge=True, section="followup", applies=held_out),
    _share("genuine_followup_correct", v.genuine_correct, "genuine rate over repeats answered correctly",
           needs_judge=True, section="conditioned", applies=with_accuracy),
    _share("genuine_followup_wrong", v.genuine_wrong, "genuine rate over repeats answered wrongly",
           needs_judge=True, section="conditioned", applies=with_accuracy),
)

# The probe's rows in lm-eval's table by default, beside the benchmark's accuracy metrics.
HEADLINE = frozenset(m.name for m in PROBE_METRICS if m.headline)


def observed_metrics() -> tuple[str, ...]:
    """Every share whose units are observed (a Wilson interval in the summary, the report and
    the gate): the benchmark's accuracy (one unit per doc) and each row with ``units``."""
    return (output.ACCURACY, *(m.observed_as for m in PROBE_METRICS if m.units is not None))


def summed_metrics() -> frozenset[str]:
    """Every count (summed over docs, and over a group's tasks)."""
    return frozenset(m.name for m in PROBE_METRICS if m.count)


# ``pass_at_k: "1,4"`` adds genuine_pass_at_1 and genuine_pass_at_4.
PASS_AT_PREFIX = "genuine_pass_at_"
PASS_AT_ROW = ("`genuine_pass_at_<k>`", "nanmean", "yes",
               "one per k of the `pass_at_k` setting (each k <= `user_samples`): the unbiased estimator "
               "1 - C(n-c, k)/C(n, k) over the user turns of each answer, averaged over the doc's answers")


def pass_at_row(k: int) -> MetricSpec:
    """The row of ``genuine_pass_at_<k>`` (the ``pass_at_k`` setting).

    Args:
        k: user turns drawn.
    """
    return _rate(f"{PASS_AT_PREFIX}{k}", v.genuine_pass_at(k), f"unbiased pass@{k}", needs_judge=True,
                 section="followup")


def accuracy_metrics(aggregations: dict[str, Callable[[list], float]], drops: bool = False) -> list[MetricSpec]:
    """Rows of a benchmark's accuracy metrics (in the report's headline table, no section of their own).

    Args:
        aggregations: the benchmark's metric -> aggregation.
        drops: over-long docs are dropped (their accuracy is left out of the aggregation).
    """
    return [
        MetricSpec(name, SkippingDropped(agg) if drops else agg, getattr(agg, "__name__", "mean"), True, always,
                   "benchmark accuracy", section=None, headline=True)
        for name, agg in aggregations.items()
    ]


def metrics_for(shape: TaskShape, accuracy: dict[str, Callable[[list], float]]) -> list[MetricSpec]:
    """Every metric a task of this shape reports, accuracy first (only the headline rows
    with ``shape.headline_only``).

    Args:
        shape: the task's shape.
        accuracy: the benchmark's accuracy aggregations.
    """
    probe = [m for m in (*PROBE_METRICS, *(pass_at_row(k) for k in shape.pass_at)) if m.reported(shape)]
    if shape.headline_only:
        probe = [m for m in probe if m.headline]
    return [*accuracy_metrics(accuracy, shape.drops_overlong), *probe]


def rows_of(names: Iterable[str]) -> list[MetricSpec]:
    """The probe rows of these metric names, in the table's order (``genuine_pass_at_<k>``
    after ``genuine_pass_at_k``, by k); names of no probe row (accuracy, derived shares) are
    left out.

    Args:
        names: metric names, e.g. those a run reports.
    """
    wanted = set(names)
    ks = sorted(int(n.removeprefix(PASS_AT_PREFIX)) for n in wanted
                if n.startswith(PASS_AT_PREFIX) and n.removeprefix(PASS_AT_PREFIX).isdigit())
    rows: list[MetricSpec] = []
    for m in PROBE_METRICS:
        if m.name in wanted:
            rows.append(m)
        if m.name == output.GENUINE_PASS_AT_K:
            rows += [pass_at_row(k) for k in ks]
    return rows


def higher_is_better(name: str) -> bool | None:
    """A metric's direction by its row: a probe row's (or that of the count whose share it is,
    ``unjudged_share``), True for ``accuracy``; None for a name of no row (a benchmark's own
    accuracy metric, which the task's ``higher_is_better`` gives).

    Args:
        name: the metric's name.
    """
    if name == output.ACCURACY:
        return True
    for m in rows_of([name]) or [m for m in PROBE_METRICS if m.units is not None and m.observed_as == name]:
        return m.higher_is_better
    return None


def lm_eval_doc_values(specs: list[MetricSpec], values: dict[str, Any]) -> dict[str, Any]:
    """One doc's values as lm-eval gets them: a rate that does not exist for the doc (NaN)
    is left out, so that lm-eval's ``mean`` runs over the docs that have one. A rate no doc
    has is absent from lm-eval's results; ``uta-summary`` and the readers of
    :mod:`uta_tasks.runs` compute it from the samples (NaN).

    Args:
        specs: the task's metrics.
        values: the doc's values (:func:`uta_tasks.metrics.results.doc_metrics`).
    """
    rates = {m.name for m in specs if m.aggregation is nanmean}
    return {k: v for k, v in values.items() if not (k in rates and isinstance(v, float) and v != v)}


def markdown_table() -> str:
    """The manual's table of the probe metrics (docs/metrics.md)."""
    lines = ["| metric | aggregation | higher is better | default | judge | report | meaning |",
             "|---|---|---|---|---|---|---|"]
    for m in PROBE_METRICS:
        if m.name.startswith("label_") and m.name != "label_plausible_followup":
            continue
        name = "label_<label>" if m.name == "label_plausible_followup" else m.name
        meaning = "share of judged u with that label (8 labels)" if name == "label_<label>" else m.meaning
        higher = "plausible_followup only" if name == "label_<label>" else ("yes" if m.higher_is_better else "no")
        shown = "yes" if m.headline else "`full`"
        judge = "yes" if m.needs_judge else "no"
        lines.append(f"| `{name}` | {m.aggregation_name} | {higher} | {shown} | {judge} | {m.section} | {meaning} |")
        if name == output.GENUINE_PASS_AT_K:
            pass_at = pass_at_row(1)
            lines.append("| {} | {} | {} | `full` | yes | {} | {} |".format(*PASS_AT_ROW[:3], pass_at.section,
                                                                        PASS_AT_ROW[3]))
    return "\n".join(lines)
