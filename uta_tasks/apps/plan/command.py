"""``uta-eval ... --plan``: what a run will do and cost, printed before it starts.

The same command line as the run, plus ``--plan``: nothing is generated and no judge is
called; the documents are read as the run reads them, and the plan prints what that
contacts. It reads ``--tasks``, ``--limit``, ``--gen_kwargs``, ``--metadata``,
``--predict_only`` and, for the tasks lm-eval builds (``uta:NAME``, ``--include_path``,
``answers_from``), the flags that decide their requests (``--model_args``, ``--samples``,
``--num_fewshot``, ``--system_instruction``, ``--fewshot_as_multiturn``); every other lm-eval
flag is accepted and ignored. It prints the tasks and documents, generations per pass, token
budgets, what pass 1 does with saved answers, judge calls after de-duplication, the judge's
input and output tokens, and, with ``--plan_price IN,OUT``, the cost live and through the Batch
API. The counting is :mod:`uta_tasks.apps.plan.counts` (:mod:`uta_tasks.apps.plan.built` for the
tasks lm-eval builds).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from uta_tasks.apps.flags import lm_eval_spelling
from uta_tasks.apps.judge_options import metadata_from_json
from uta_tasks.apps.plan.built import Flags, SavedPlan
from uta_tasks.apps.plan.counts import PlanError, make_plan
from uta_tasks.apps.plan.plans import BATCH_DISCOUNT, Assumed, Plan, Price
from uta_tasks.judge.prompt import CHARS_PER_TOKEN

PROG = "uta-eval --plan"


def parser() -> argparse.ArgumentParser:
    """The flags the plan reads (lm-eval's names) and its own ``--plan_*`` flags."""
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0], allow_abbrev=False)
    p.add_argument("--plan", action="store_true", help="print the plan and exit")
    p.add_argument("--tasks", required=True, help="as lm_eval --tasks")
    p.add_argument("--limit", type=float, default=None, help="as lm_eval --limit")
    p.add_argument("--gen_kwargs", default="", help="as lm_eval --gen_kwargs")
    p.add_argument("--metadata", default="{}", help="as lm_eval --metadata (task, data and judge settings)")
    p.add_argument("--predict_only", action="store_true", help="as lm_eval --predict_only (no judge)")
    p.add_argument("--model_args", default="", help="as lm_eval --model_args (the tokenizer that measures saved answers)")
    p.add_argument("--include_path", default=None, help="as lm_eval --include_path (your own task folder)")
    p.add_argument("--samples", default=None, help="as lm_eval --samples (a JSON object: task -> document ids)")
    p.add_argument("--num_fewshot", type=int, default=None, help="as lm_eval --num_fewshot")
    p.add_argument("--system_instruction", default=None, help="as lm_eval --system_instruction")
    p.add_argument("--fewshot_as_multiturn", nargs="?", const=True, default=False, help="as lm_eval")
    p.add_argument("--plan_price", default=None, metavar="IN,OUT",
                   help="the judge's price in US dollars per million input and output tokens (your provider's)")
    p.add_argument("--plan_batch_discount", type=float, default=BATCH_DISCOUNT,
                   help=f"the Batch API's discount on both prices (default {BATCH_DISCOUNT}: OpenAI's Batch API FAQ)")
    p.add_argument("--plan_answer_tokens", type=int, default=None,
                   help="assumed tokens of each final answer the judge reads (default: bounds only)")
    p.add_argument("--plan_user_tokens", type=int, default=None,
                   help="assumed tokens of each generated user turn (default: bounds only)")
    p.add_argument("--plan_reply_tokens", type=int, default=None,
                   help="assumed tokens of each judge reply, reasoning included (default: bounds only)")
    return lm_eval_spelling(p)


def _samples(text: str | None) -> dict[str, list[int]] | None:
    """``--samples`` as lm-eval reads it: a JSON object, or a file holding one."""
    if not text:
        return None
    import json
    from pathlib import Path

    try:
        value = json.loads(Path(text).read_text() if Path(text).is_file() else text)
    except (OSError, ValueError) as error:
        raise SystemExit(f"{PROG}: --samples must be a JSON object (task -> document ids) or a file holding one: "
                         f"{error}") from None
    if not isinstance(value, dict):
        raise SystemExit(f"{PROG}: --samples must be a JSON object (task -> document ids), got {text!r}")
    return value


def _row(cells: Sequence[object], widths: Sequence[int]) -> str:
    return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))


def _saved_files(path: str) -> list[str]:
    """The ``answers_from`` lines of a plan whose saved run could not be read (its tasks were not built)."""
    return ["", f"Answers: read from {path}."]


def _saved_lines(path: str, saved: SavedPlan) -> list[str]:
    """What pass 1 does with the saved answers: the files, the answers used as saved, the
    completions and the most tokens they can take."""
    out = ["", f"Answers: 0 generated; {saved.answers:,} read from {path}" + (":" if saved.files else "."),
           *(f"  {f}" for f in saved.files)]
    if saved.unread:
        return out + [f"  Not read before the run ({saved.unread}); the run reads it, and refuses it if it must. "
                      "Completions: not counted."]
    if not saved.checked:
        return out + ["  Completions: not counted: the model's tokenizer (--model_args pretrained=... or tokenizer=...) "
                      "could not be loaded; the run measures the saved answers after the model loads."]
    fitted = (f"fitted to the model's maximum length {saved.max_length:,} ({saved.length_from})"
              if saved.max_length else f"not fitted to the model's maximum length ({saved.length_from})")
    out.append(f"  {saved.as_saved:,} used as saved ({saved.incomplete:,} of them flagged incomplete: the pass-1 "
               f"budget is no larger than the answer), {saved.after_stop:,} completed after a stop string, "
               f"{saved.after_budget:,} completed after the saved run's token budget.")
    if saved.completions:
        out.append(f"  Completions: {saved.completions:,} generations, each up to the rest of the pass-1 budget a full "
                   f"run gives its prompt, {fitted}: at most {saved.largest:,} tokens each, {saved.total_tokens:,} in "
                   "all. Bound them with --gen_kwargs max_gen_toks=N (answers it cuts are flagged incomplete).")
    else:
        out.append("  Completions: none.")
    return out


def render(plan: Plan, price: Price | None, assumed: Assumed) -> str:
    """The plan as text.

    Args:
        plan: the plan.
        price: the judge's price, or None.
        assumed: lengths assumed for the estimate.
    """
    out = [
        "Plan: no model is loaded and no judge is called. Counts are before lm-eval's request cache, the judge "
        "cache and pre-labels.",
        f"Read: the uta task files, the judge prompt {plan.judge_prompt} and each benchmark's documents, as the run "
        "reads them (where each came from is under \"Tasks and documents\").",
        (f"Network: reading the documents contacts {'; '.join(plan.contacts)}." if plan.contacts else
         "Network: nothing is contacted; the documents come from local files or the `datasets` cache, and no NLTK "
         "data is downloaded."),
        "",
    ]
    widths = (max(14, *(len(b.benchmark) for b in plan.benchmarks)), 6, 7, 9, 11, 12)
    out.append(_row(("benchmark", "tasks", "docs", "answers", "user turns", "judge calls"), widths))
    for b in plan.benchmarks:
        out.append(_row((b.benchmark, len(b.tasks), b.docs.n, b.pass1, b.pass2, b.judge_calls), widths))
    total_docs = sum(b.docs.n for b in plan.benchmarks)
    out.append(_row(("total", sum(len(b.tasks) for b in plan.benchmarks), total_docs, plan.pass1, plan.pass2,
                     plan.judge_calls), widths))
    if plan.saved is not None:
        out.append(f"(answers: those generated; {plan.saved.answers:,} saved answers are read instead, with "
                   f"{plan.saved.completions:,} completions: under \"Answers\")")
    out.append("")
    out.append("Tasks and documents:")
    for b in plan.benchmarks:
        out.append(f"  {b.benchmark}: {', '.join(b.tasks)}")
        out.append(f"    {b.docs.n} documents: {b.docs.origin}")
    if plan.skipped:
        out.append(f"  not uta tasks, not planned: {', '.join(plan.skipped)}")
    if plan.answers_from and plan.saved is not None:
        out.extend(_saved_lines(plan.answers_from, plan.saved))
    elif plan.answers_from:
        out.extend(_saved_files(plan.answers_from))
    out.append("")
    mode = ("greedy (T = 0): identical requests generated once, repeats merge" if plan.greedy
            else f"sampled (T > 0): repeats {plan.repeats}, user_samples {plan.user_samples}, nothing merged")
    out.append(f"Decoding: {mode}.")
    out.append(f"Token budgets: answer max_gen_toks {plan.max_gen_toks:,}; user turn user_max_gen_toks "
               f"{plan.user_max_gen_toks:,}; judge reply judge_max_tokens {plan.judge_max_tokens:,}.")
    if not plan.judged:
        out.append("Judge: off (judge: none or --predict_only); no judge calls.")
        return "\n".join(out)
    calls = plan.judge_calls
    out.append(f"Judge: {plan.judge_model}, prompt {plan.judge_prompt}; {calls:,} calls after de-duplication.")
    low = plan.input_tokens(0, 0)
    high = plan.input_tokens(plan.max_gen_toks, plan.user_max_gen_toks)
    lines = [("lower bound: answers and user turns empty", low, 0),
             (f"upper bound: answers at {plan.max_gen_toks:,}, user turns at {plan.user_max_gen_toks:,}, "
              f"replies at {plan.judge_max_tokens:,} tokens", high, calls * plan.judge_max_tokens)]
    if None not in (assumed.answer_tokens, assumed.user_tokens, assumed.reply_tokens):
        assert assumed.answer_tokens is not None and assumed.user_tokens is not None
        assert assumed.reply_tokens is not None
        lines.insert(1, (f"estimate: answers of {assumed.answer_tokens:,}, user turns of {assumed.user_tokens:,}, "
                         f"replies of {assumed.reply_tokens:,} tokens",
                         plan.input_tokens(assumed.answer_tokens, assumed.user_tokens), calls * assumed.reply_tokens))
    else:
        out.append("  (an estimate between the bounds: --plan_answer_tokens A --plan_user_tokens U "
                   "--plan_reply_tokens R)")
    out.append(f"Judge tokens (the real prompt template around the real documents, {CHARS_PER_TOKEN} characters "
               "per token):")
    for name, tokens_in, tokens_out in lines:
        cost = ""
        if price is not None:
            cost = (f"; ${price.cost(tokens_in, tokens_out):,.2f} live, "
                    f"${price.cost(tokens_in, tokens_out, batch=True):,.2f} Batch API")
        out.append(f"  {name}: {tokens_in:,} in, {tokens_out:,} out{cost}")
    if price is None:
        out.append("Cost: pass --plan_price IN,OUT, your judge's dollars per million input and output tokens.")
    else:
        out.append(f"Cost at ${price.input_per_m:g} / ${price.output_per_m:g} per million input / output tokens; "
                   f"Batch API {price.batch_discount:.0%} off (--plan_batch_discount).")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the plan of a ``uta-eval`` command line.

    Args:
        argv: the command line without the program name.
    """
    from uta_tasks import lm_eval_compat as compat

    args, _ = parser().parse_known_args(list(sys.argv[1:] if argv is None else argv))
    try:
        price = Price.parse(args.plan_price, args.plan_batch_discount)
    except PlanError as error:
        raise SystemExit(f"{PROG}: {error}") from None
    flags = Flags(compat.parse_args_string(args.model_args), args.include_path, samples=_samples(args.samples),
                  num_fewshot=args.num_fewshot, system_instruction=args.system_instruction,
                  fewshot_as_multiturn=args.fewshot_as_multiturn not in (False, "False", "false"))
    try:
        plan = make_plan(
            [t for t in args.tasks.split(",") if t], metadata=metadata_from_json(args.metadata, PROG),
            gen_kwargs=compat.parse_args_string(args.gen_kwargs), limit=args.limit, predict_only=args.predict_only,
            flags=flags,
        )
    except PlanError as error:
        raise SystemExit(f"{PROG}: {error}") from None
    print(render(plan, price, Assumed(args.plan_answer_tokens, args.plan_user_tokens, args.plan_reply_tokens)))
    return 0
