"""The lm-eval task class of every uta task (``class: !function uta_tasks.lm_eval_task.UTATask``).

A uta task is a ``generate_until`` task for lm-eval's bookkeeping (``--gen_kwargs``,
``--limit``, ``repeats``, ``--log_samples``, ``--predict_only`` all apply), but its
requests are of type ``generate_user_turn``, served by :mod:`uta_tasks.probe.hook` for all
uta tasks of the run together. Per doc it builds the chat messages of the benchmark (plus
``--system_instruction``), and scores the returned probe records: the benchmark's own
accuracy on the final answer, and the judge's verdicts on the user turns.

Everything it needs from lm-eval's internals goes through :mod:`uta_tasks.lm_eval_compat`;
the metrics it reports come from :mod:`uta_tasks.metrics.table`.

Settings read from the task metadata (YAML ``metadata`` and lm-eval ``--metadata``):
``role_switch``, ``question_seed``, ``user_max_gen_toks``, ``pass2_context``,
``truncate_scope``, ``user_samples``, ``pass_at_k``, ``metrics``, ``judge`` and every ``judge_*`` key; see
docs/settings.md.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from uta_tasks import lm_eval_compat as compat
from uta_tasks.datasets import BENCHMARKS
from uta_tasks.datasets.conversations import PROBE_TURN_KEY
from uta_tasks.judge.redact import redact_value
from uta_tasks.lm_eval_compat import metric_rows
from uta_tasks.metrics import table
from uta_tasks.metrics.results import doc_metrics
from uta_tasks.metrics.shape import task_metrics
from uta_tasks.probe import hook, perturbations, task_settings
from uta_tasks.probe.task_settings import TaskSettings
from uta_tasks.saved_answers import load as saved_answers
from uta_tasks.schema import output
from uta_tasks.schema.probe import REQUEST_TYPE, ProbeRecord, ProbeSpec, question_text
from uta_tasks.wrap import is_wrapped
from uta_tasks.wrap.benchmark import benchmark as wrap_benchmark
from uta_tasks.wrap.benchmark import messages as wrap_messages
from uta_tasks.wrap.names import source_of
from uta_tasks.wrap.settings import KEYS as WRAP_KEYS
from uta_tasks.wrap.settings import WrapSettings

if TYPE_CHECKING:
    from uta_tasks.judge import JudgeSettings


log = logging.getLogger(__name__)


class UTATaskError(ValueError):
    """A uta task is misconfigured; the message names the task and the setting."""


# Metadata keys of the uta tasks besides judge_* (lm-eval adds its own, e.g. model args).
_TASK_KEYS = (*task_settings.KEYS, "uta_benchmark", "uta_perturbation", "data_hub_timeout", PROBE_TURN_KEY,
              "uta_source_version")


def _judge_settings(meta: dict) -> JudgeSettings | None:
    """The judge settings of a task, parsed once (metadata, then the environment), or None
    when the judge is off (every off-word, ``UTA_JUDGE=none`` included; a bad value or a
    URL carrying credentials fails here, before any generation). Every spec of the task
    carries this one value."""
    from uta_tasks.judge import JudgeSettings

    settings = JudgeSettings.from_metadata({k: v for k, v in meta.items() if k == "judge" or k.startswith("judge_")})
    return settings if settings.enabled else None


def _check_keys(task: str, meta: dict) -> None:
    """Reject a metadata key that is a near miss of a uta setting (``role_swich``)."""
    import difflib

    from uta_tasks.datasets import BENCHMARKS
    from uta_tasks.judge import suggest_key

    known = [*_TASK_KEYS, *(f"{b}_{s}" for b in BENCHMARKS for s in ("data_files", "dataset_path", "unverifiable"))]
    known += [*WRAP_KEYS, *(k for k in meta if k.endswith("_data_files") and is_wrapped(meta.get("uta_benchmark")))]
    for key in meta:
        if key in known or key.startswith("judge"):
            continue
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.85) or [suggest_key(key)]
        if close[0]:
            raise UTATaskError(f"{task}: --metadata key {key!r} is not a uta setting; did you mean {close[0]!r}?")


def _report_score_differences(task: str, records: list[ProbeRecord], values: dict) -> None:
    """``answers_from``: warn, per document, where this run's score of an answer differs from the
    score the saved run gave it (never averaged away)."""
    for record in records:
        source = record.answer_source or {}
        for name, saved in (source.get("saved_scores") or {}).items():
            if name in values and values[name] != saved:
                log.warning("%s: document %s: %s is %r here but %r in the saved run %s", task, source.get("doc_id"),
                            name, values[name], saved, source.get("samples"))


class UTATask(compat.task_base_class()):  # type: ignore[misc]
    """One benchmark x perturbation of the user-turn probe.

    Args:
        config: the task's YAML config (metadata ``uta_benchmark``, ``uta_perturbation``).
    """

    def __init__(self, config: dict | None = None, **kwargs: Any) -> None:
        config = {k: v for k, v in (config or {}).items() if k != "class"}
        meta = config.get("metadata") or {}
        name = config.get("task", "?")
        bench = meta.get("uta_benchmark")
        if bench not in BENCHMARKS and not is_wrapped(bench):
            raise UTATaskError(f"{name}: metadata uta_benchmark={bench!r} is not one of {sorted(BENCHMARKS)}")
        perturbation = meta.get("uta_perturbation", "none")
        if perturbation not in perturbations.names():
            raise UTATaskError(f"{name}: metadata uta_perturbation={perturbation!r} is not one of "
                               f"{', '.join(perturbations.names())} (uta_tasks/probe/perturbations.py)")
        self.benchmark = BENCHMARKS[bench] if bench in BENCHMARKS else wrap_benchmark(name, str(bench), meta)
        self.perturbation = perturbation
        self._system_instruction: str | None = None
        self._predict_only = False
        _check_keys(name, meta)
        self._judge = _judge_settings(meta)
        # Parsed once per task, here: lm-eval hands every task its --metadata at construction
        # (0.4.13 and 0.5), so the requests, the metrics and dump_config read this one value.
        self._settings = TaskSettings.from_metadata(name, meta)
        self._saved = self._read_saved(name, meta)
        hook.install()
        super().__init__(config=compat.prepare_config(config, metric_rows.metric_list(self._metrics())), **kwargs)
        compat.after_init(self)

    # ---- settings ----------------------------------------------------------------
    @property
    def saved_run(self) -> saved_answers.SavedTask | None:
        """``answers_from``: the saved run's answers of this task (None without the setting)."""
        return self._saved

    def _read_saved(self, name: str, meta: dict) -> saved_answers.SavedTask | None:
        """``answers_from``: the saved run's answers of this task, read once, refused here when
        the run has no samples of it or answered with another model; a run whose reasoning
        ``think_end_token`` stripped sets ``pass2_context`` to the rendered-history ablation."""
        if self._settings.answers_from is None:
            return None
        base = name.removesuffix(f"_{self.perturbation}") if self.perturbation != "none" else name
        names = [name, base] + ([source_of(self.benchmark.name)] if is_wrapped(self.benchmark.name) else [])
        try:
            found = saved_answers.load(self._settings.answers_from, list(dict.fromkeys(names)), name,
                                       self._settings.answers_from_settings)
            config = saved_answers.results_config(found)
            saved_answers.check_model(name, found, config, meta)
            context = saved_answers.stripped_context(name, found.samples, config, meta.get("pass2_context"))
        except saved_answers.SavedRunError as exc:
            raise UTATaskError(str(exc)) from None
        if context is not None and context != self._settings.pass2_context:
            log.warning("%s: the saved run %s was made with think_end_token, so its responses hold no reasoning and "
                        "no pass-1 trace is left: pass 2 runs as the rendered-history ablation (pass2_context=%s), "
                        "recorded in every record and not comparable with the paper", name, found.samples, context)
        if context is not None:
            self._settings = replace(self._settings, pass2_context=context)
        return found

    def _metrics(self) -> list[table.MetricSpec]:
        judged = self._judge is not None and not self._predict_only
        return task_metrics(self.benchmark, self.perturbation, self._settings, judged)

    def override_metric(self, metric_name: str) -> None:
        """lm-eval calls this with ``bypass`` for ``--predict_only``: no judge, no scores.

        Args:
            metric_name: the forced metric.
        """
        self._predict_only = metric_name == "bypass"
        super().override_metric(metric_name)
        compat.after_override_metric(self, metric_name)

    # ---- requests ----------------------------------------------------------------
    def messages(self, doc: dict) -> list[dict]:
        """Chat messages of a doc, with ``--system_instruction`` first when given (for a wrapped
        lm-eval task joined with the task's ``description`` into one system message, as lm-eval
        joins them).

        Args:
            doc: a benchmark doc.
        """
        if is_wrapped(self.benchmark.name):
            return [dict(m) for m in wrap_messages(self.benchmark, doc, self._system_instruction or None)]
        messages = [dict(m) for m in self.benchmark.doc_to_messages(doc)]
        if self._system_instruction:
            messages = [{"role": "system", "content": self._system_instruction}, *messages]
        return messages

    def doc_to_text(self, doc: dict, doc_to_text: Any = None) -> str:
        return question_text(self.benchmark.doc_to_messages(doc))

    def doc_to_target(self, doc: dict, doc_to_target: Any = None) -> str:
        return ""

    def fewshot_context(self, doc: dict, num_fewshot: int, system_instruction: str | None = None,
                        *args: Any, **kwargs: Any) -> str:
        # The probe is zero-shot and always uses the model's own chat template; this text
        # only serves lm-eval's --write_out and prompt hashes.
        return self.doc_to_text(doc)

    def build_all_requests(self, *args: Any, system_instruction: str | None = None, **kwargs: Any) -> Any:
        if kwargs.get("limit") == 0:
            raise UTATaskError(
                f"{self.config.task}: --limit 0 means every document to lm-eval (a full, paid run); "
                "give --limit N with N >= 1, or leave --limit out to run everything on purpose."
            )
        self._system_instruction = system_instruction
        return super().build_all_requests(*args, system_instruction=system_instruction, **kwargs)

    def spec(self, doc: dict) -> ProbeSpec:
        """The probe request of one doc.

        Args:
            doc: a benchmark doc.
        """
        bench = self.benchmark
        return ProbeSpec(
            task=self.config.task,
            benchmark=bench.name,
            perturbation=self.perturbation,
            messages=self.messages(doc),
            role_switch=self._settings.role_switch,
            question_seed=self._settings.question_seed,
            user_max_gen_toks=self._settings.user_max_gen_toks,
            judge=None if self._predict_only else self._judge,
            given_answer=bench.given_answer(doc) if bench.given_answer else None,
            reference_user_turn=bench.reference_user_turn(doc) if bench.reference_user_turn else None,
            overlong=self._settings.overlong,
            prompt_mismatch=self._settings.prompt_mismatch,
            user_temperature=self._settings.user_temperature,
            question_pool=self._settings.question_pool,
            pass2_context=self._settings.pass2_context,
            truncate_scope=self._settings.truncate_scope,
            user_samples=self._settings.user_samples,
        )

    def construct_requests(self, doc: dict, ctx: Any, **kwargs: Any) -> Any:
        spec = self.spec(doc)
        doc_id = kwargs.get("doc_id")
        if doc_id is None:  # lm-eval 0.4 passes (task, doc_id, repeats) as metadata
            doc_id = (kwargs.get("metadata") or (None, 0, None))[1]
        if self._saved is not None:
            try:
                spec = replace(spec, saved=self._saved.answer(self.config.task, int(doc_id or 0), doc))
            except saved_answers.SavedRunError as exc:
                raise UTATaskError(str(exc)) from None
        instance = compat.make_instance(
            REQUEST_TYPE, doc, (spec.q, dict(self.config.generation_kwargs or {}), spec.to_dict()),
            task_name=self.config.task, doc_id=int(doc_id or 0), repeats=int(self.config.repeats or 1),
        )
        return [instance] if compat.IS_05 else instance

    # ---- metrics -----------------------------------------------------------------
    def process_results(self, doc: dict, results: Any) -> dict:
        if self._predict_only:
            return {"bypass": None}
        records = [ProbeRecord.from_json(r) for r in compat.doc_responses(results)]
        specs = self._metrics()
        values = doc_metrics(doc, records, specs, self.benchmark.score, self.benchmark.primary)
        _report_score_differences(self.config.task, records, values)
        return table.lm_eval_doc_values(specs, values)

    def aggregation(self) -> dict:
        if self._predict_only:
            return super().aggregation()
        return {m.name: metric_rows.lm_eval_aggregation(m) for m in self._metrics()}

    def higher_is_better(self) -> dict:
        if self._predict_only:
            return super().higher_is_better()
        return {m.name: m.higher_is_better for m in self._metrics()}

    def dump_config(self) -> dict:
        """The config lm-eval writes to the results, with a ``metric_list`` naming every
        metric this task reports (lm-eval's W&B logger and Zeno script read it), and every
        probe setting in its ``metadata``."""
        dumped = super().dump_config()
        # Every probe setting as the task used it, so a run without --log_samples still says
        # how it was made (uta_tasks.runs.comparability reads them).
        used = {k: (",".join(map(str, v)) or None) if isinstance(v, tuple) else v
                for k, v in vars(self._settings).items()}
        dumped["metadata"] = {**used, **(dumped.get("metadata") or {})}
        if not self._predict_only:
            dumped["metric_list"] = metric_rows.metric_list(self._metrics(), readable=True)
        dumped.pop("filter_list", None)
        if self._saved is not None:  # answers_from: the saved run, named in the run's configuration
            dumped["metadata"] = {**dumped["metadata"], output.META_ANSWERS_SOURCE: self._saved.source}
        if is_wrapped(self.benchmark.name):  # the run reader takes a wrapped task's accuracy metric from here
            dumped["metadata"] = {**(dumped.get("metadata") or {}), "uta_primary": self.benchmark.primary}
            # lm-eval's n-shot column reads the config's num_fewshot: the examples q really holds
            dumped["num_fewshot"] = WrapSettings.from_metadata(self.config.task, "", self.config.metadata or {}).num_fewshot
        if self._saved is not None and self._saved.num_fewshot is not None:  # pass 1 came from the saved prompts
            dumped["num_fewshot"] = self._saved.num_fewshot
        # lm-eval writes this config (the run's --metadata and model_args merged in) to the results:
        # no credential in it (uta_tasks.judge.redact's rules)
        return redact_value(dumped)

