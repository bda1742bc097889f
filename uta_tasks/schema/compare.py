"""The vocabulary of ``uta-compare`` (many models, one page): where a model's run stands, what the
comparison did with it, how its user turns are judged, and the names of the files it writes.

The statuses are spelled here once; :mod:`uta_tasks.apps.compare` and the tests read them.
"""

from __future__ import annotations

from typing import Literal, get_args

# Where a model's run folder stands against what the comparison asks of it (the resume rule,
# :mod:`uta_tasks.apps.compare.resume`): no run yet; a run that lacks a task, a samples file or
# documents (killed, or made with another --limit or --tasks); a run made with other settings;
# a complete run made with the same settings (skipped on a resume).
RunStatus = Literal["missing", "incomplete", "different", "complete"]
RUN_MISSING: RunStatus = "missing"
RUN_INCOMPLETE: RunStatus = "incomplete"
RUN_DIFFERENT: RunStatus = "different"
RUN_COMPLETE: RunStatus = "complete"

# What one step of the comparison did for a model: skipped (its output was complete and made with
# the same settings), ran to its end, or failed (its process exited with an error; the others go on).
StepOutcome = Literal["skipped", "ran", "failed"]
STEP_SKIPPED: StepOutcome = "skipped"
STEP_RAN: StepOutcome = "ran"
STEP_FAILED: StepOutcome = "failed"

# How the user turns are judged: by each model's ``uta-eval`` as it runs (live), or, after every
# model has generated (``--predict_only``), through the OpenAI Batch API for all models at once
# (``uta-batch``), then ``uta-rejudge`` of each model from the verdict cache (no second call).
JudgeVia = Literal["live", "batch"]
JUDGE_LIVE: JudgeVia = "live"
JUDGE_BATCH: JudgeVia = "batch"
JUDGE_VIA: tuple[JudgeVia, ...] = get_args(JudgeVia)

# Each model's own report: built by the page when missing or made from other files, or left out.
ModelReports = Literal["build", "skip"]
REPORTS_BUILD: ModelReports = "build"
REPORTS_SKIP: ModelReports = "skip"
MODEL_REPORTS: tuple[ModelReports, ...] = get_args(ModelReports)

# ---- the files a comparison writes under its --output_path ----------------------------------
PAGE_FILE = "index.html"
LEADERBOARD_FILE = "leaderboard.json"
LEADERBOARD_CSV = "leaderboard.csv"
LEADERBOARD_SCHEMA = "uta-leaderboard/1"
RUNS_DIR = "runs"  # runs/<model>/: each model's run folder (an ordinary lm-eval --output_path)
GENERATED_DIR = "generated"  # generated/<model>/: judge via batch, the --predict_only runs
REPORTS_DIR = "reports"  # reports/<model>/report.html: each model's own uta-report
LOGS_DIR = "logs"  # logs/<model>.<step>.log: what each model's process printed
COUNTS_DIR = "counts"  # counts/<model>.json: per-document counts read from a run, by its files' digests
