"""The one table of every metric a uta task reports.

Each row says the metric's name, how lm-eval aggregates it over docs, whether higher is
better, when a task reports it, what it means, and its function of a doc's records
(:mod:`uta_tasks.metrics.values`). :func:`uta_tasks.metrics.results.measure` runs those
functions, live for lm-eval and again on logged samples for every reader, so the two
cannot differ. It feeds the task's
``process_results`` (which keys a doc returns), ``aggregation()``, ``higher_is_better()``,
the ``metric_list`` lm-eval dumps with the results (and its W&B logger reads), the
quickstart's summary and the manual's table (docs/metrics.md) (checked by a test).

Accuracy metrics come from the benchmark (``uta_tasks.datasets``); they are added in front
of the probe's own rows.

**Headline rows.** A row with ``headline=True`` is in lm-eval's results (and its printed
table) by default: the benchmark's accuracy metrics and :data:`HEADLINE`. Every other row
is computed only with the ``metrics: full`` task setting; the logged samples hold
everything needed to compute it later.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from uta_tasks import lm_eval_compat as compat
from uta_tasks.metrics import values as v
from uta_tasks.metrics.aggregate import SkippingDropped, total
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
    """One metric.

    Attributes:
        name: the key in results (``<name>,none``).
        aggregation: lm-eval aggregation over per-doc values.
        aggregation_name: how the dumped ``metric_list`` names it.
        higher_is_better: lm-eval's flag.
        applies: whether a task of this shape reports it.
        meaning: one line for the manual's table.
        headline: reported by default (else only with ``metrics: full``).
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


# The probe's rows in lm-eval's table by default, beside the benchmark's accuracy metrics.
HEADLINE = frozenset({"genuine_followup", "genuine_followup_base", "genuine_followup_diff", "share_changed",
                      "unjudged"})


def _always(shape: TaskShape) -> bool:
    return True


def _judged(shape: TaskShape) -> bool:
    return shape.judged


def _perturbed(shape: TaskShape) -> bool:
    return shape.perturbed


def _trunc(shape: TaskShape) -> bool:
    return shape.perturbation == "trunc"


def _judged_perturbed(shape: TaskShape) -> bool:
    return shape.judged and shape.perturbed


def _judged_sampled(shape: TaskShape) -> bool:
    return shape.judged and shape.user_samples > 1


def _judged_held_out(shape: TaskShape) -> bool:
    return shape.judged and shape.held_out


def _judged_with_accuracy(shape: TaskShape) -> bool:
    return shape.judged and shape.primary is not None


def _generated(shape: TaskShape) -> bool:
    return not shape.held_out


def _judged_generated(shape: TaskShape) -> bool:
    return shape.judged and not shape.held_out


Applies = Callable[[TaskShape], bool]


def _share(name: str, units: Callable[[v.Doc], v.Units], applies: Applies, meaning: str,
           higher: bool = True) -> MetricSpec:
    """A share of units (judged turns, docs), with a Wilson interval in the summary."""
    return MetricSpec(name, compat.nanmean, "nanmean", higher, applies, meaning, name in HEADLINE, units=units)


def _rate(name: str, value: Callable[[v.Doc], float], applies: Applies, meaning: str,
          higher: bool = True) -> MetricSpec:
    """A per-doc value averaged over docs, with lm-eval's standard error."""
    return MetricSpec(name, compat.nanmean, "nanmean", higher, applies, meaning, name in HEADLINE, value=value)


def _count(name: str, value: Callable[[v.Doc], float], applies: Applies, meaning: str) -> MetricSpec:
    """A per-doc count summed over docs."""
    return MetricSpec(name, total, "sum", False, applies, meaning, name in HEADLINE, value=value)


PROBE_METRICS: tuple[MetricSpec, ...] = (
    _share("share_changed", v.share_changed, _perturbed,
          "share of docs whose u differs in text from u_ref (NaN when sampled, T > 0)"),
    _count("trunc_emptied", v.trunc_emptied, _trunc,
           "docs whose final answer had 25 tokens or fewer, so a' has no final answer"),
    MetricSpec("answer_incomplete", compat.nanmean, "nanmean", False, _generated,
               "share of answers whose reasoning never closed or that hit the token budget (scored wrong)",
               value=v.answer_incomplete),
    MetricSpec("overlong", total, "sum", False, _always,
               "docs dropped because a prompt did not fit the model (overlong: drop)"),
    _share("genuine_followup", v.genuine, _judged, "share of judged user turns u that are genuine follow-ups"),
    _rate("genuine_followup_complete", v.genuine_complete, _judged_generated,
          "genuine_followup over complete answers only"),
    _share("genuine_pass_at_k", v.genuine_pass_at_n, _judged,
          "unbiased pass@k at k = n: with `user_samples` n > 1, the chance that one of the n user turns after "
          "the same a' is genuine, 1 - C(n-c, n)/C(n, n); else the share of docs with a genuine u over the repeats"),
    _rate("genuine_prob", v.genuine_prob, _judged_sampled,
          "`user_samples` > 1: per doc, the share of genuine turns among its judged user samples"),
    *(
        _share(f"label_{label}", v.label_share(label), _judged, f"share of judged u labelled {label}",
              higher=label == "plausible_followup")
        for label in LABELS
    ),
    MetricSpec("unjudged", total, "sum", False, _judged, "user turns (u, u_ref, reference) without a valid verdict",
               headline=True, units=v.unjudged),
    _count("n_judged", v.n_judged, _judged, "user turns u with a verdict (the denominator of genuine_followup)"),
    _count("n_unjudged", v.n_unjudged, _judged, "user turns u without a valid verdict"),
    _count("n_judged_base", v.n_judged_base, _judged_perturbed, "u_ref turns with a verdict"),
    _count("n_unjudged_base", v.n_unjudged_base, _judged_perturbed, "u_ref turns without a valid verdict"),
    _count("n_judged_reference", v.n_judged_reference, _judged_held_out, "real next user turns with a verdict"),
    _count("n_unjudged_reference", v.n_unjudged_reference, _judged_held_out,
           "real next user turns without a valid verdict"),
    _count("judge_calls", v.judge_usage("calls"), _judged, "judge requests sent (retries included)"),
    _count("judge_cache_hits", v.judge_usage("cache_hits"), _judged, "verdicts read from the judge cache"),
    _count("judge_calls_saved", v.judge_calls_saved, _judged,
           "user turns labelled by a pre-label rule (`judge_prelabel`) instead of a judge request"),
    _count("judge_input_tokens", v.judge_usage("input_tokens"), _judged, "judge prompt tokens"),
    _count("judge_output_tokens", v.judge_usage("output_tokens"), _judged, "judge completion tokens"),
    _share("genuine_followup_base", v.genuine_base, _judged_perturbed,
          "genuine rate of u_ref (after the unperturbed answer), on the repeats where u is judged too"),
    _rate("genuine_followup_diff", v.genuine_diff, _judged_perturbed,
          "perturbed minus base genuine rate, per doc, paired"),
    _share("genuine_followup_reference", v.genuine_reference, _judged_held_out,
          "genuine rate of the real next user turn (held-out)"),
    _share("genuine_followup_correct", v.genuine_correct, _judged_with_accuracy,
          "genuine rate over repeats answered correctly"),
    _share("genuine_followup_wrong", v.genuine_wrong, _judged_with_accuracy,
          "genuine rate over repeats answered wrongly"),
)


def observed_metrics() -> tuple[str, ...]:
    """Every share whose units are observed (a Wilson interval in the summary, the report and
    the gate): the benchmark's accuracy (one unit per doc) and each row with ``units``."""
    return (output.ACCURACY, *(m.observed_as for m in PROBE_METRICS if m.units is not None))


# ``pass_at_k: "1,4"`` adds genuine_pass_at_1 and genuine_pass_at_4.
PASS_AT_PREFIX = "genuine_pass_at_"
PASS_AT_ROW = ("`genuine_pass_at_<k>`", "nanmean", "yes",
               "one per k of the `pass_at_k` setting (each k <= `user_samples`): the unbiased estimator "
               "1 - C(n-c, k)/C(n, k) over the user turns of each answer, averaged over the doc's answers")


def accuracy_metrics(aggregations: dict[str, Callable[[list], float]], drops: bool = False) -> list[MetricSpec]:
    """Rows of a benchmark's accuracy metrics.

    Args:
        aggregations: the benchmark's metric -> aggregation.
        drops: over-long docs are dropped (their accuracy is left out of the aggregation).
    """
    return [
        MetricSpec(name, SkippingDropped(agg) if drops else agg, getattr(agg, "__name__", "mean"), True, _always,
                   "benchmark accuracy", headline=True)
        for name, agg in aggregations.items()
    ]


def metrics_for(shape: TaskShape, accuracy: dict[str, Callable[[list], float]]) -> list[MetricSpec]:
    """Every metric a task of this shape reports, accuracy first (only the headline rows
    with ``shape.headline_only``).

    Args:
        shape: the task's shape.
        accuracy: the benchmark's accuracy aggregations.
    """
    probe = [m for m in PROBE_METRICS if m.applies(shape)]
    if shape.judged:
        probe += [_rate(f"{PASS_AT_PREFIX}{k}", v.genuine_pass_at(k), _judged, f"unbiased pass@{k}")
                  for k in shape.pass_at]
    if shape.headline_only:
        probe = [m for m in probe if m.headline]
    return [*accuracy_metrics(accuracy, shape.drops_overlong), *probe]


def lm_eval_aggregation(spec: MetricSpec) -> Callable[[list], float]:
    """The aggregation handed to lm-eval: lm-eval's own ``mean`` for our rates and benchmark
    means, so that lm-eval computes the row's standard error in closed form (its
    ``stderr_for_metric`` knows only its own functions); counts (``sum``), instruction-level
    and ``overlong: drop`` aggregations stay ours, without one.

    A rate's NaN (a doc with no judged turn) never reaches lm-eval
    (:func:`lm_eval_doc_values`), so its ``mean`` is our ``nanmean``. lm-eval's own
    ``nanmean`` would be bootstrapped: 100,000 resamples per row by default, about 20 s per
    row at N = 1,319 on an idle 2-core machine (``perf/bootstrap_cost.py``).

    Args:
        spec: the metric.
    """
    from uta_tasks.datasets.base import mean as benchmark_mean

    if spec.aggregation is compat.nanmean or spec.aggregation is benchmark_mean:
        return compat.native_aggregation("mean")
    return spec.aggregation


def lm_eval_doc_values(specs: list[MetricSpec], values: dict[str, Any]) -> dict[str, Any]:
    """One doc's values as lm-eval gets them: a rate that does not exist for the doc (NaN)
    is left out, so that lm-eval's ``mean`` runs over the docs that have one. A rate no doc
    has is absent from lm-eval's results; ``uta-summary`` and the readers of
    :mod:`uta_tasks.runs` compute it from the samples (NaN).

    Args:
        specs: the task's metrics.
        values: the doc's values (:func:`uta_tasks.metrics.results.doc_metrics`).
    """
    rates = {m.name for m in specs if m.aggregation is compat.nanmean}
    return {k: v for k, v in values.items() if not (k in rates and isinstance(v, float) and v != v)}


def metric_list(specs: list[MetricSpec], *, readable: bool = False) -> list[dict[str, Any]]:
    """lm-eval ``metric_list`` entries.

    Args:
        specs: the metrics.
        readable: name the aggregation (for dumps) instead of giving the function.
    """
    return [
        {
            "metric": m.name,
            "aggregation": m.aggregation_name if readable else lm_eval_aggregation(m),
            "higher_is_better": m.higher_is_better,
        }
        for m in specs
    ]


def markdown_table() -> str:
    """The manual's table of the probe metrics (docs/metrics.md)."""
    lines = ["| metric | aggregation | higher is better | default | meaning |", "|---|---|---|---|---|"]
    for m in PROBE_METRICS:
        if m.name.startswith("label_") and m.name != "label_plausible_followup":
            continue
        name = "label_<label>" if m.name == "label_plausible_followup" else m.name
        meaning = "share of judged u with that label (8 labels)" if name == "label_<label>" else m.meaning
        higher = "plausible_followup only" if name == "label_<label>" else ("yes" if m.higher_is_better else "no")
        shown = "yes" if m.headline else "`full`"
        lines.append(f"| `{name}` | {m.aggregation_name} | {higher} | {shown} | {meaning} |")
        if name == "genuine_pass_at_k":
            lines.append("| {} | {} | {} | `full` | {} |".format(*PASS_AT_ROW))
    return "\n".join(lines)
