"""The comparison's plan: each model's as ``uta-eval --plan`` counts it
(:func:`uta_tasks.apps.plan.counts.make_plan`), and the total, printed before any model runs.

Models whose runs read the same settings get the same plan (their documents are read once);
a model with ``answers_from`` generates no answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from uta_tasks.apps.compare.spec import CompareError, Comparison, ModelEntry
from uta_tasks.apps.plan.built import Flags
from uta_tasks.apps.plan.counts import PlanError, make_plan
from uta_tasks.apps.plan.plans import Assumed, Plan, Price
from uta_tasks.schema.compare import JUDGE_BATCH


@dataclass(frozen=True)
class ModelPlan:
    """One model's plan.

    Attributes:
        model: the model.
        plan: what its run generates and judges.
    """

    model: ModelEntry
    plan: Plan

    @property
    def docs(self) -> int:
        """Documents of its tasks (each benchmark's once)."""
        return sum(b.docs.n for b in self.plan.benchmarks)

    def tasks_and_docs(self) -> dict[str, int]:
        """Each uta task of the run and the documents it evaluates."""
        return {task: b.docs.n for b in self.plan.benchmarks for task in b.tasks}


def plan_models(comparison: Comparison) -> list[ModelPlan]:
    """Every model's plan.

    Args:
        comparison: the comparison.

    Raises:
        CompareError: the plan cannot be made (its message names the task or setting).
    """
    from uta_tasks import lm_eval_compat as compat

    gen_kwargs = compat.parse_args_string(comparison.gen_kwargs)
    plans: dict[str, Plan] = {}
    out = []
    for model in comparison.models:
        metadata = comparison.metadata_for(model)
        # saved answers are measured with the model's own tokenizer: their plan is the model's own
        model_args = compat.parse_args_string(model.model_args) if model.answers_from else {}
        key = json.dumps([metadata, model_args], sort_keys=True, default=str)
        if key not in plans:
            try:
                plans[key] = make_plan(list(comparison.tasks), metadata=metadata, gen_kwargs=gen_kwargs,
                                       limit=comparison.limit, flags=Flags(model_args))
            except PlanError as error:
                raise CompareError(f"{comparison.source}: model {model.name!r}: {error}") from None
        out.append(ModelPlan(model, plans[key]))
    return out


def _bounds(plan: Plan, assumed: Assumed) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int] | None]:
    """Judge ``(input, output)`` tokens: lower bound, upper bound, and the estimate when every length is assumed."""
    calls = plan.judge_calls
    low = (plan.input_tokens(0, 0), 0)
    high = (plan.input_tokens(plan.max_gen_toks, plan.user_max_gen_toks), calls * plan.judge_max_tokens)
    estimate = None
    if assumed.answer_tokens is not None and assumed.user_tokens is not None and assumed.reply_tokens is not None:
        estimate = (plan.input_tokens(assumed.answer_tokens, assumed.user_tokens), calls * assumed.reply_tokens)
    return low, high, estimate


def _row(cells: Sequence[object], widths: Sequence[int]) -> str:
    return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))


def _dollars(price: Price | None, tokens: tuple[int, int], batch: bool) -> str:
    return "-" if price is None else f"${price.cost(*tokens, batch=batch):,.2f}"


def render_plan(comparison: Comparison, plans: list[ModelPlan], price: Price | None, assumed: Assumed) -> str:
    """The comparison's plan as text: a row per model, the total, and what the judge costs.

    Args:
        comparison: the comparison.
        plans: each model's plan (:func:`plan_models`).
        price: the judge's price, or None.
        assumed: lengths assumed for the estimate.
    """
    first = plans[0].plan
    name_width = max(5, *(len(p.model.name) for p in plans))
    use = "estimate" if _bounds(first, assumed)[2] is not None else "upper bound"
    widths = (name_width, 9, 7, 9, 11, 9, 11, len(use) + 7, len(use) + 8)
    out = [
        f"Comparison plan: {len(plans)} model(s), --tasks {','.join(comparison.tasks)}"
        + (f", --limit {comparison.limit:g}" if comparison.limit is not None else "")
        + f"; judged {'through the Batch API for all models at once' if comparison.judge_via == JUDGE_BATCH else 'live'}"
        + ". No model is loaded and no judge is called.",
        "Each model runs in a process of its own (uta-eval), one at a time. Counts are before lm-eval's request "
        "cache, the judge cache and pre-labels.",
        "",
        _row(("model", "answers", "docs", "pass 1", "completions", "pass 2", "judge calls", f"live ({use})",
              f"batch ({use})"), widths),
    ]
    counts = [0, 0, 0, 0, 0]  # documents, pass 1, completions, pass 2, judge calls
    tokens_in_all = (0, 0)
    for entry in plans:
        plan = entry.plan
        _low, high, estimate = _bounds(plan, assumed)
        tokens = estimate or high
        row = [entry.docs, plan.pass1, plan.saved.completions if plan.saved else 0, plan.pass2, plan.judge_calls]
        out.append(_row((entry.model.name, "saved" if entry.model.answers_from else "generated", *row,
                         _dollars(price, tokens, False), _dollars(price, tokens, True)), widths))
        counts = [a + b for a, b in zip(counts, row)]
        tokens_in_all = (tokens_in_all[0] + tokens[0], tokens_in_all[1] + tokens[1])
    out.append(_row(("total", "", *counts, _dollars(price, tokens_in_all, False), _dollars(price, tokens_in_all, True)),
                    widths))
    out.append("")
    lows = [_bounds(p.plan, assumed)[0] for p in plans]
    highs = [_bounds(p.plan, assumed)[1] for p in plans]
    low = (sum(t[0] for t in lows), sum(t[1] for t in lows))
    high = (sum(t[0] for t in highs), sum(t[1] for t in highs))
    out.append(f"Judge tokens in all: lower bound {low[0]:,} in, {low[1]:,} out; upper bound {high[0]:,} in, "
               f"{high[1]:,} out (answers at {first.max_gen_toks:,}, user turns at {first.user_max_gen_toks:,}, "
               f"replies at {first.judge_max_tokens:,} tokens).")
    if price is None:
        out.append("Cost: pass --plan_price IN,OUT, your judge's dollars per million input and output tokens.")
    else:
        out.append(f"Cost in all: live {_dollars(price, low, False)} to {_dollars(price, high, False)}; Batch API "
                   f"{_dollars(price, low, True)} to {_dollars(price, high, True)} (${price.input_per_m:g} / "
                   f"${price.output_per_m:g} per million input / output tokens, Batch API "
                   f"{price.batch_discount:.0%} off).")
    if use == "upper bound":
        out.append("  (an estimate between the bounds: --plan_answer_tokens A --plan_user_tokens U "
                   "--plan_reply_tokens R)")
    for entry in plans:
        if entry.model.answers_from:
            saved = entry.plan.saved
            measured = (f"{saved.after_stop:,} completed after a stop string and {saved.after_budget:,} after the "
                        f"saved run's budget, at most {saved.total_tokens:,} tokens in all"
                        if saved is not None and saved.checked else
                        "completions not counted: the model's tokenizer could not be loaded")
            out.append(f"{entry.model.name}: answers read from {entry.model.answers_from} (0 generated; {measured}; "
                       "docs/saved-runs.md)")
    if not first.judged:
        out.append("Judge: off (judge: none); no judge calls.")
    else:
        out.append(f"Judge: {first.judge_model}, prompt {first.judge_prompt}.")
    return "\n".join(out)
