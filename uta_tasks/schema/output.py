"""The names of what a uta run writes: lm-eval's output files, the metrics the uta tasks
report, the keys of the task config lm-eval dumps, and the blocks this package adds.

The metrics (:mod:`uta_tasks.metrics`) write these names and the readers of output folders
(:mod:`uta_tasks.runs`, the gate, the report) look them up here. The fields of a probe record
and of a verdict are not listed: they are the attributes of
:class:`~uta_tasks.schema.probe.ProbeRecord` and :class:`~uta_tasks.schema.verdict.Verdict`.
"""

from __future__ import annotations

# ---- lm-eval output files ---------------------------------------------------------------
RESULTS_GLOB = "results_*.json"
RESULTS_PREFIX = "results_"
SAMPLES_PREFIX = "samples_"
SUMMARY_FILE = "summary.json"
SUMMARY_SCHEMA = "uta-summary/1"
FILTER = "none"  # the uta tasks' only filter (``keep_all`` under the name "none")


def metric_key(metric: str) -> str:
    """Key of a metric in lm-eval's results JSON, e.g. ``genuine_followup,none``.

    Args:
        metric: the metric name.
    """
    return f"{metric},{FILTER}"


def stderr_key(metric: str) -> str:
    """Key of a metric's standard error in lm-eval's results JSON.

    Args:
        metric: the metric name.
    """
    return f"{metric}_stderr,{FILTER}"


# ---- metrics reported by the uta tasks (uta_tasks.metrics.results) -----------------------
GENUINE = "genuine_followup"
GENUINE_BASE = "genuine_followup_base"
GENUINE_DIFF = "genuine_followup_diff"
GENUINE_PASS_AT_K = "genuine_pass_at_k"
GENUINE_CORRECT = "genuine_followup_correct"
GENUINE_WRONG = "genuine_followup_wrong"
GENUINE_REFERENCE = "genuine_followup_reference"
UNJUDGED = "unjudged"
SHARE_CHANGED = "share_changed"  # the share of repeats whose u differs in text from u_ref (0-1)
TRUNC_EMPTIED = "trunc_emptied"
LABEL_PREFIX = "label_"
JUDGE_USAGE_METRICS = ("judge_calls", "judge_cache_hits", "judge_input_tokens", "judge_output_tokens")

# ---- metrics this package derives (documented in docs/gate.md) ------------------------------
ACCURACY = "accuracy"  # the benchmark's primary accuracy metric, under one name
UNJUDGED_SHARE = "unjudged_share"  # unjudged verdicts / all verdicts (u, u_ref, the real next turn)

# Names an older uta-tasks wrote for the same quantity. Readers of saved files (summary.json,
# gate rules, the paper's cells) read them under today's name.
FORMER_NAMES = {"changed_share": SHARE_CHANGED}


def current_name(metric: str) -> str:
    """Today's name of a metric that a saved file may spell the old way (``changed_share``).

    Args:
        metric: a metric name as read from a file.
    """
    return FORMER_NAMES.get(metric, metric)


def label_metric(label: str) -> str:
    """Metric name of a label's share, e.g. ``label_previous_turn_restate``.

    Args:
        label: one of :data:`uta_tasks.schema.labels.LABELS`.
    """
    return f"{LABEL_PREFIX}{label}"


# ---- where a run's verdicts came from (``uta-rejudge`` adds this block to the results JSON) ---
REJUDGE_KEY = "rejudge"  # {"judge": settings, "date": ..., "source_results": path, "sources": {task: path}}
VERDICTS_LIVE = "live"  # judged while lm-eval ran
VERDICTS_REJUDGE = "rejudge"  # judged afterwards by uta-rejudge

# ---- the task config lm-eval dumps (results["configs"][task]) ----------------------------
META_BENCHMARK = "uta_benchmark"
META_PERTURBATION = "uta_perturbation"
META_JUDGE = "judge"
META_JUDGE_MODEL = "judge_model"
META_JUDGE_PROMPT = "judge_prompt"
META_JUDGE_TEMPERATURE = "judge_temperature"
# ``answers_from``: the saved run a task's answers were read from (path, model, lm-eval version,
# config digest), in the task's dumped config metadata.
META_ANSWERS_SOURCE = "uta_answers_source"
# The probe's modes (issue 17): run dimensions like temperature, never pooled together.
RUN_MODES = ("pass2_context", "truncate_scope")
# The unperturbed control. Every perturbation, this one included, is an entry of the
# registry in uta_tasks.probe.perturbations (its name, function, needs and paper membership).
PERTURBATION_NONE = "none"
TASK_PREFIX = "uta_"


# ---- a logged sample and its probe records (uta_tasks.probe.hook) -------------------------
SAMPLE_DOC_ID = "doc_id"
SAMPLE_RESPS = "filtered_resps"  # record version 3: the probe records; since 4: where they are in SAMPLE_RAW_RESPS
SAMPLE_RAW_RESPS = "resps"  # lm-eval's raw responses: the probe records, one per repeat
GEN_ASSISTANT = "assistant"  # the pass-1 half of a record's ``generation`` ({"assistant": ..., "user": ...})
GEN_TEMPERATURE = "temperature"  # lm-eval generation kwarg (the task config's generation_kwargs too)

# ---- the provenance block of summary.json (uta_tasks.runs.provenance) ---------------------
PROV_JUDGED = "judged"  # True when the task ran with a judge (uta_tasks.runs.comparability: verdicts, else judging_enabled)
