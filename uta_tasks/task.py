"""The lm-eval task class of every uta task (``class: !function uta_tasks.task.UTATask``).

A uta task is a ``generate_until`` task for lm-eval's bookkeeping (``--gen_kwargs``,
``--limit``, ``repeats``, ``--log_samples``, ``--predict_only`` all apply), but its
requests are of type ``generate_user_turn``, served by :mod:`uta_tasks.probe.hook` for all
uta tasks of the run together. Per doc it builds the chat messages of the benchmark (plus
``--system_instruction``), and scores the returned probe records: the benchmark's own
accuracy on the final answer, and the judge's verdicts on the user turns.

Settings read from the task metadata (YAML ``metadata`` and lm-eval ``--metadata``):
``role_switch``, ``question_seed``, ``user_max_gen_toks``, ``judge`` and every ``judge_*``
key; see the README.
"""

from __future__ import annotations

import json
from typing import Any

from lm_eval.api.instance import Instance
from lm_eval.api.task import ConfigurableTask
from lm_eval.filters import build_filter_ensemble

from uta_tasks.benchmarks import BENCHMARKS
from uta_tasks.metrics import results as metric_results
from uta_tasks.judge.labels import LABELS
from uta_tasks.probe import hook
from uta_tasks.probe.perturb import PERTURBATIONS
from uta_tasks.probe.spec import DEFAULT_USER_MAX_GEN_TOKS, REQUEST_TYPE, make_spec, question_text

_LOWER_IS_BETTER = {"unjudged", *(f"label_{x}" for x in LABELS if x != "plausible_followup")}


class UTATaskError(ValueError):
    """A uta task is misconfigured; the message names the task and the setting."""


def keep_all(resps, docs):
    """lm-eval filter: keep every repeat's probe record for ``process_results``."""
    return resps


class UTATask(ConfigurableTask):
    """One benchmark x perturbation of the user-turn probe.

    Args:
        config: the task's YAML config (metadata ``uta_benchmark``, ``uta_perturbation``).
    """

    def __init__(self, config: dict | None = None, **kwargs: Any) -> None:
        config = {k: v for k, v in (config or {}).items() if k != "class"}
        meta = config.get("metadata") or {}
        name = config.get("task", "?")
        bench = meta.get("uta_benchmark")
        if bench not in BENCHMARKS:
            raise UTATaskError(f"{name}: metadata uta_benchmark={bench!r} is not one of {sorted(BENCHMARKS)}")
        perturbation = meta.get("uta_perturbation", "none")
        if perturbation not in PERTURBATIONS:
            raise UTATaskError(f"{name}: metadata uta_perturbation={perturbation!r} is not one of {PERTURBATIONS}")
        self.benchmark = BENCHMARKS[bench]
        self.perturbation = perturbation
        self._system_instruction: str | None = None
        hook.install()
        super().__init__(config=config, **kwargs)
        self._filters = [build_filter_ensemble("none", [["custom", {"filter_fn": keep_all}]])]

    # ---- settings ----------------------------------------------------------------
    @property
    def _meta(self) -> dict:
        return self.config.metadata or {}

    def _predict_only(self) -> bool:
        return "bypass" in self._metric_fn_list

    def _judge_settings(self) -> dict | None:
        if self._predict_only() or str(self._meta.get("judge", "openai")).lower() == "none":
            return None
        return {k: v for k, v in self._meta.items() if k == "judge" or k.startswith("judge_")}

    def _int_setting(self, key: str, default: int) -> int:
        raw = self._meta.get(key, default)
        try:
            return int(raw)
        except (TypeError, ValueError):
            raise UTATaskError(
                f"{self.config.task}: --metadata {key}={raw!r} must be an integer"
            ) from None

    # ---- requests ----------------------------------------------------------------
    def messages(self, doc: dict) -> list[dict]:
        """Chat messages of a doc, with ``--system_instruction`` first when given.

        Args:
            doc: a benchmark doc.
        """
        messages = [dict(m) for m in self.benchmark.doc_to_messages(doc)]
        if self._system_instruction:
            messages = [{"role": "system", "content": self._system_instruction}, *messages]
        return messages

    def doc_to_text(self, doc, doc_to_text=None) -> str:
        return question_text(self.benchmark.doc_to_messages(doc))

    def doc_to_target(self, doc, doc_to_target=None) -> str:
        return ""

    def fewshot_context(self, doc, num_fewshot, system_instruction=None, *args, **kwargs) -> str:
        # The probe is zero-shot and always uses the model's own chat template; this text
        # only serves lm-eval's --write_out and prompt hashes.
        return self.doc_to_text(doc)

    def build_all_requests(self, *args, system_instruction: str | None = None, **kwargs) -> None:
        self._system_instruction = system_instruction
        return super().build_all_requests(*args, system_instruction=system_instruction, **kwargs)

    def construct_requests(self, doc: dict, ctx: str, **kwargs) -> Instance:
        bench = self.benchmark
        spec = make_spec(
            task=self.config.task,
            benchmark=bench.name,
            perturbation=self.perturbation,
            messages=self.messages(doc),
            role_switch=str(self._meta.get("role_switch", "auto")),
            question_seed=self._int_setting("question_seed", 0),
            user_max_gen_toks=self._int_setting("user_max_gen_toks", DEFAULT_USER_MAX_GEN_TOKS),
            judge=self._judge_settings(),
            given_answer=bench.given_answer(doc) if bench.given_answer else None,
            reference_user_turn=bench.reference_user_turn(doc) if bench.reference_user_turn else None,
        )
        return Instance(
            request_type=REQUEST_TYPE,
            doc=doc,
            arguments=(question_text(spec["messages"]), dict(self.config.generation_kwargs or {}), spec),
            idx=0,
            metadata=kwargs.get("metadata", (self.config.task, None, self.config.repeats)),
        )

    # ---- metrics -----------------------------------------------------------------
    def process_results(self, doc: dict, results: list) -> dict:
        if self._predict_only():
            return {"bypass": None}
        records = [json.loads(r) for r in results[0]]
        out: dict[str, Any] = {}
        if self.benchmark.aggregations:
            out.update(metric_results.accuracy_metrics(doc, records, self.benchmark.score))
        out.update(metric_results.perturbation_metrics(records))
        if self._judge_settings() is not None:
            out.update(metric_results.follow_up_metrics(records))
            out.update(metric_results.conditioned(out, self.benchmark.primary))
        return out

    def aggregation(self) -> dict:
        if self._predict_only():
            return super().aggregation()
        return metric_results.aggregations(
            self.benchmark.aggregations,
            self.perturbation,
            held_out=self.benchmark.reference_user_turn is not None,
            primary=self.benchmark.primary,
            judged=self._judge_settings() is not None,
        )

    def higher_is_better(self) -> dict:
        if self._predict_only():
            return super().higher_is_better()
        return {name: name not in _LOWER_IS_BETTER and not name.startswith("judge_") and name != "trunc_emptied"
                for name in self.aggregation()}
