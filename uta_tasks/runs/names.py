"""Every name the readers of lm-eval output folders depend on, in one place.

The probe (``uta_tasks.probe.hook``) and the metrics (``uta_tasks.metrics.results``) decide
these names; the run readers, the gate and the report only look them up here, so a rename
upstream is a one-line change below.
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
PCT_CHANGED = "share_changed"
# The share of docs whose u changed, reported as a 0-1 share (``share_changed``).
PCT_CHANGED_SCALE = 1.0
TRUNC_EMPTIED = "trunc_emptied"
LABEL_PREFIX = "label_"
JUDGE_USAGE_METRICS = ("judge_calls", "judge_cache_hits", "judge_input_tokens", "judge_output_tokens")

# ---- metrics this package derives (documented in docs/gate.md) ------------------------------
ACCURACY = "accuracy"  # the benchmark's primary accuracy metric, under one name
UNJUDGED_SHARE = "unjudged_share"  # unjudged verdicts / all verdicts (verdict and verdict_ref)
CHANGED_SHARE = "changed_share"  # lm-eval's share_changed (0-1), with an interval


def labels() -> tuple[str, ...]:
    """The judge's eight labels, in the paper's order."""
    from uta_tasks.judge.labels import LABELS

    return LABELS


def label_metric(label: str) -> str:
    """Metric name of a label's share, e.g. ``label_previous_turn_restate``.

    Args:
        label: one of :func:`labels`.
    """
    return f"{LABEL_PREFIX}{label}"


def primary_metric(benchmark: str) -> str | None:
    """The benchmark's ``primary`` accuracy metric (None for held-out benchmarks or unknown names).

    Args:
        benchmark: key of ``uta_tasks.datasets.BENCHMARKS``.
    """
    from uta_tasks.datasets import BENCHMARKS

    bench = BENCHMARKS.get(benchmark)
    return None if bench is None else bench.primary


def benchmark_order() -> list[str]:
    """Benchmark names in the package's (the paper's) order."""
    from uta_tasks.datasets import BENCHMARKS

    return list(BENCHMARKS)


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
JUDGE_OFF = "none"  # the ``judge`` setting that skips judging
# The probe's modes (issue 17): run dimensions like temperature, never pooled together.
RUN_MODES = ("pass2_context", "truncate_scope")
PERTURBATION_NONE = "none"
PERTURBATIONS = (PERTURBATION_NONE, "trunc", "question")  # in the order tables list them
TASK_PREFIX = "uta_"


def judge_defaults() -> dict[str, object]:
    """Judge model, prompt version and temperature used when the run's metadata names none."""
    from uta_tasks.judge.settings import JudgeSettings

    defaults = JudgeSettings()
    return {"judge_model": defaults.model, "prompt_version": defaults.prompt, "judge_temperature": defaults.temperature}


# ---- a logged sample and its probe records (uta_tasks.probe.hook) -------------------------
SAMPLE_DOC_ID = "doc_id"
SAMPLE_RESPS = "filtered_resps"
REC_TASK = "task"
REC_Q = "q"
REC_A = "a"
REC_A_PRIME = "a_prime"
REC_ANSWER = "answer"
REC_U = "u"
REC_U_REF = "u_ref"
REC_REFERENCE_TURN = "reference_user_turn"
REC_PERTURBATION = "perturbation"
REC_GENERATION = "generation"  # {"assistant": gen kwargs, "user": gen kwargs}
REC_GENERATION_ASSISTANT = "assistant"
GEN_TEMPERATURE = "temperature"  # lm-eval generation kwarg (the task config's generation_kwargs too)
REC_VERDICT = "verdict"  # u after a'
REC_VERDICT_REF = "verdict_ref"  # u_ref after the unperturbed a
REC_VERDICT_REFERENCE = "verdict_reference"  # held-out: the real next user turn

# ---- a verdict dict (uta_tasks.judge.records.Verdict.to_dict) ------------------------------
V_STATUS = "status"
V_JUDGED = "judged"
V_LABEL = "label"
V_GENUINE = "genuine"
V_RATIONALE = "rationale"
V_REASON = "reason"
V_PROMPT = "prompt"
V_JUDGE_MODEL = "judge_model"
V_PROMPT_VERSION = "prompt_version"
