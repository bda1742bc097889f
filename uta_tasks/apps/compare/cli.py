"""``uta-compare``: many models on one page: a list of models and their answers in, a ranking
with intervals out.

    uta-compare models.yaml --output_path cmp/ [--plan] [--plan_price IN,OUT] [--page_only]

It prints the plan of every model and the total (documents, generations of each pass, judge
calls, their cost live and through the Batch API), then runs each model's probe in a process
of its own (``uta-eval``), one at a time, skipping a model whose run is complete and made with
the same settings (:mod:`.resume`), judges live or through the Batch API for all models at
once (:mod:`.runner`), and writes ``index.html``, ``leaderboard.json`` and ``leaderboard.csv``
(:mod:`.page`) from the runs. Run it again after a crash or a kill: it goes on where it
stopped, and the judge's cache pays no call twice.

Exit status: 0 when every model is on the page, 1 when a model failed (the others are on the
page), 2 on a refusal (the file or a setting), 3 when Batch API batches are still running.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from uta_tasks.apps.compare.planning import ModelPlan, plan_models, render_plan
from uta_tasks.apps.compare.reading import ModelJob, ModelRun, read_model, read_models
from uta_tasks.apps.compare.spec import CompareError, Comparison, ModelEntry, load_comparison
from uta_tasks.apps.flags import lm_eval_spelling
from uta_tasks.apps.plan.documents import PlanError
from uta_tasks.apps.plan.plans import BATCH_DISCOUNT, Assumed, Price
from uta_tasks.judge.redact import install_log_redaction
from uta_tasks.runs import EstimateSettings
from uta_tasks.schema import compare as names

PROG = "uta-compare"
EXIT_FAILED, EXIT_REFUSED, EXIT_PENDING = 1, 2, 3
log = logging.getLogger(__name__)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``uta-compare``."""
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config", type=Path, help="the YAML file of the models (docs: Compare many models)")
    p.add_argument("--output_path", type=Path, required=True,
                   help="the comparison's folder: runs/<model>/, reports/<model>/, index.html, leaderboard.json")
    p.add_argument("--plan", action="store_true", help="print the plan and exit (no model is loaded, no judge called)")
    p.add_argument("--page_only", action="store_true", help="run no model: write the page from the runs present")
    p.add_argument("--judge_via", choices=names.JUDGE_VIA, default=None,
                   help="live (each model's run judges) or batch (the Batch API, all models at once); "
                        "default: the file's judge_via, else live")
    p.add_argument("--model_reports", choices=names.MODEL_REPORTS, default=names.REPORTS_BUILD,
                   help="each model's own report under reports/<model>/ (default build, when missing or stale)")
    p.add_argument("--title", default="Many models, one probe", help="the page's title")
    p.add_argument("--workers", type=int, default=None,
                   help="processes reading the runs for the page (default: one per core, at most 2)")
    p.add_argument("--poll_interval", type=float, default=None, help="uta-batch's seconds between polls")
    p.add_argument("--plan_price", default=None, metavar="IN,OUT",
                   help="the judge's price in US dollars per million input and output tokens (your provider's)")
    p.add_argument("--plan_batch_discount", type=float, default=BATCH_DISCOUNT,
                   help=f"the Batch API's discount on both prices (default {BATCH_DISCOUNT})")
    p.add_argument("--plan_answer_tokens", type=int, default=None, help="assumed tokens of each final answer")
    p.add_argument("--plan_user_tokens", type=int, default=None, help="assumed tokens of each generated user turn")
    p.add_argument("--plan_reply_tokens", type=int, default=None, help="assumed tokens of each judge reply")
    EstimateSettings.add_arguments(p)
    return lm_eval_spelling(p)


def _say(line: str) -> None:
    print(line, flush=True)


def job(model: ModelEntry, out: Path, settings: EstimateSettings, reports: str) -> ModelJob:
    """What the page reads of one model (:mod:`.reading`)."""
    return ModelJob(model.name, model.slug, out / names.RUNS_DIR / model.slug,
                    out / names.COUNTS_DIR / f"{model.slug}.json",
                    None if reports == names.REPORTS_SKIP else out / names.REPORTS_DIR / model.slug, settings)


def write_the_page(comparison: Comparison, out: Path, settings: EstimateSettings, *, reports: str,
                   workers: int | None, title: str) -> int:
    """Read every model's run and write the page; the number of models that could not be read."""
    from uta_tasks.apps.compare.page import write_page
    from uta_tasks.apps.compare.ranking import leaderboard

    models = read_models([job(m, out, settings, reports) for m in comparison.models], workers)
    for model in models:
        if model.error is not None:
            log.error("%s: not on the page: %s", model.name, model.error)
    files = write_page(leaderboard(models, settings), out, title=title)
    _say(f"Page: {files.html} (with {files.json.name} and {files.csv.name}); {len(models)} model(s), "
         f"{sum(m.error is None for m in models)} read")
    return sum(m.error is not None for m in models)


def _read_once(model: ModelRun) -> None:
    """A model just run, read for the page right away (its summary, counts and report are then current)."""
    if model.error is not None:
        log.warning("%s: its run could not be read: %s", model.name, model.error)


def run(args: argparse.Namespace) -> int:
    """The command once parsed (module doc)."""
    comparison = load_comparison(args.config)
    if args.judge_via is not None:
        comparison = dataclasses.replace(comparison, judge_via=args.judge_via)
    settings = EstimateSettings.from_args(args)
    out: Path = args.output_path
    if args.page_only:
        return EXIT_FAILED if write_the_page(comparison, out, settings, reports=args.model_reports,
                                             workers=args.workers, title=args.title) else 0
    try:
        price = Price.parse(args.plan_price, args.plan_batch_discount)
    except PlanError as error:
        raise CompareError(str(error)) from None
    plans: list[ModelPlan] = plan_models(comparison)
    _say(render_plan(comparison, plans, price, Assumed(args.plan_answer_tokens, args.plan_user_tokens,
                                                       args.plan_reply_tokens)))
    if args.plan:
        return 0
    _say("")
    from uta_tasks.apps.compare.runner import Comparer

    comparer = Comparer(comparison, plans, out, settings, _say,
                        [] if args.poll_interval is None else ["--poll_interval", str(args.poll_interval)],
                        after_run=lambda model: _read_once(read_model(job(model, out, settings, args.model_reports))))
    if comparison.judge_via == names.JUDGE_BATCH:
        if not comparer.run_batch():
            return EXIT_PENDING
    else:
        comparer.run_live()
    failed = [p.model.name for p in comparer.progress if not p.complete]
    if failed:
        log.error("not complete: %s (see their logs under %s; run the same command again to retry them)",
                  ", ".join(failed), out / names.LOGS_DIR)
    unread = write_the_page(comparison, out, settings, reports=args.model_reports, workers=args.workers,
                            title=args.title)
    return EXIT_FAILED if failed or unread else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``uta-compare``.

    Args:
        argv: the command line without the program name (default ``sys.argv[1:]``).
    """
    install_log_redaction()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return run(args)
    except CompareError as error:
        logging.getLogger(PROG).error("%s", error)
        return EXIT_REFUSED


if __name__ == "__main__":
    sys.exit(main())
