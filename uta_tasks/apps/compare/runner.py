"""The comparison's runs: each model's probe in a process of its own, one at a time, each
skipped when its run is complete and made with the same settings (:mod:`.resume`).

* **live** judging: each model's ``uta-eval`` judges its user turns as it runs, into
  ``runs/<model>/``; the judge's on-disk cache keeps every verdict as it arrives, so a model
  whose run was killed and is run again pays no judge call twice.
* **batch** judging: each model's ``uta-eval --predict_only`` writes ``generated/<model>/``;
  then one ``uta-batch`` submits the user turns of every model still to judge to the OpenAI
  Batch API at once (it resumes its own batches; it fills the same verdict cache); then each
  model's ``uta-rejudge`` reads its verdicts from the cache (no call) into ``runs/<model>/``.

Either way ``runs/<model>/`` is an ordinary run folder that every command reads.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uta_tasks.apps.compare.planning import ModelPlan
from uta_tasks.apps.compare.resume import Expected, RunState, run_state
from uta_tasks.apps.compare.spec import CompareError, Comparison, ModelEntry
from uta_tasks.apps.compare.steps import Finished, batch_argv, eval_argv, rejudge_argv, run_process, write_state
from uta_tasks.runs import EstimateSettings
from uta_tasks.schema import compare as names

log = logging.getLogger(__name__)
EXIT_BATCH_PENDING = 3  # uta-batch's: batches still running


@dataclass
class ModelProgress:
    """What the comparison did for one model.

    Attributes:
        model: the model.
        steps: step name (``eval``, ``rejudge``) -> its outcome.
        state: where its run folder stands now.
        seconds: seconds its processes ran.
    """

    model: ModelEntry
    steps: dict[str, names.StepOutcome] = field(default_factory=dict)
    state: RunState | None = None
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        """Its run folder is complete and made with the comparison's settings."""
        return self.state is not None and self.state.status == names.RUN_COMPLETE


def judge_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """The judge's settings among a run's ``--metadata`` (``judge`` and ``judge_*``)."""
    return {k: v for k, v in metadata.items() if k == "judge" or k.startswith("judge_")}


def expected(comparison: Comparison, plan: ModelPlan, *, judged: bool) -> Expected:
    """What one model's run must have been made with.

    Args:
        comparison: the comparison.
        plan: the model's plan.
        judged: whether its verdicts are asked for.
    """
    from uta_tasks import lm_eval_compat as compat

    return Expected(plan.model.backend, plan.model.model_args, plan.tasks_and_docs(), comparison.limit,
                    compat.parse_args_string(comparison.gen_kwargs), comparison.metadata_for(plan.model), judged)


class Comparer:
    """Runs the comparison's models under ``out`` (module doc).

    Args:
        comparison: the comparison.
        plans: each model's plan.
        out: the comparison's folder.
        settings: the interval settings each run's ``summary.json`` is made with.
        say: where progress lines go.
        batch_args: more ``uta-batch`` flags.
        after_run: called with a model whose process has just ended well, before its run is checked (the
            page's reader: it reads the run once, writing its summary, its counts and its report).
    """

    def __init__(self, comparison: Comparison, plans: Sequence[ModelPlan], out: Path, settings: EstimateSettings,
                 say: Callable[[str], None], batch_args: Sequence[str] = (),
                 after_run: Callable[[ModelEntry], None] | None = None) -> None:
        self.comparison = comparison
        self.plans = list(plans)
        self.out = out
        self.settings = settings
        self.say = say
        self.batch_args = tuple(batch_args)
        self.after_run = after_run
        self.progress = [ModelProgress(p.model) for p in self.plans]
        self.judged = self.plans[0].plan.judged if self.plans else False

    def folder(self, model: ModelEntry, kind: str = names.RUNS_DIR) -> Path:
        """A model's folder of one kind (``runs``, ``generated``)."""
        return self.out / kind / model.slug

    def _log(self, model: ModelEntry, step: str) -> Path:
        return self.out / names.LOGS_DIR / f"{model.slug}.{step}.log"

    def _save(self) -> None:
        write_state(self.out / "comparison.json", {
            "source": str(self.comparison.source), "judge_via": self.comparison.judge_via,
            "models": [{"name": p.model.name, "folder": f"{names.RUNS_DIR}/{p.model.slug}", "steps": p.steps,
                        "status": p.state.status if p.state else None, "reason": p.state.reason if p.state else None}
                       for p in self.progress]})

    def _step(self, index: int, step: str, argv: list[str], folder: Path, want: Expected) -> RunState:
        """Run one model's process unless its output is complete; the output's state after it."""
        progress = self.progress[index]
        model = progress.model
        where = f"[{index + 1}/{len(self.plans)}] {model.name}"
        state = run_state(folder, want, self.settings)
        if state.status == names.RUN_COMPLETE:
            self.say(f"{where}: {step} skipped: {folder} is complete and was made with the same settings")
            progress.steps[step] = names.STEP_SKIPPED
            return state
        self.say(f"{where}: {step} ({state.status}: {state.reason}); log {self._log(model, step)}")
        self._save()
        finished: Finished = run_process(argv, self._log(model, step))
        progress.seconds += finished.seconds
        if finished.exit_code == 0 and self.after_run is not None and folder == self.folder(model):
            self.after_run(model)
        state = run_state(folder, want, self.settings)
        if finished.exit_code != 0 or state.status != names.RUN_COMPLETE:
            progress.steps[step] = names.STEP_FAILED
            why = f"exit {finished.exit_code}" if finished.exit_code != 0 else f"{state.status}: {state.reason}"
            log.error("%s: %s failed (%s) after %.0f s; the last lines of %s:\n%s", where, step, why,
                      finished.seconds, finished.log, finished.tail())
        else:
            progress.steps[step] = names.STEP_RAN
            self.say(f"{where}: {step} done in {finished.seconds:.0f} s")
        return state

    def run_live(self) -> None:
        """Each model's ``uta-eval``, judged as it runs."""
        for i, plan in enumerate(self.plans):
            want = expected(self.comparison, plan, judged=self.judged)
            argv = eval_argv(self.comparison, plan.model, self.folder(plan.model), predict_only=False)
            self.progress[i].state = self._step(i, "eval", argv, self.folder(plan.model), want)
            self._save()

    def run_batch(self) -> bool:
        """Generate every model, judge them all through the Batch API, then re-judge each from the
        cache. False when batches are still running (run the same command again to collect)."""
        if not self.judged:
            raise CompareError(f"{self.comparison.source}: judge_via batch needs a judge; the metadata turns it off")
        todo = []
        for i, plan in enumerate(self.plans):
            want = expected(self.comparison, plan, judged=True)
            state = run_state(self.folder(plan.model), want, self.settings)
            if state.status == names.RUN_COMPLETE:
                self.say(f"[{i + 1}/{len(self.plans)}] {plan.model.name}: skipped: {self.folder(plan.model)} is "
                         "complete and was made with the same settings")
                self.progress[i].steps["eval"] = names.STEP_SKIPPED
                self.progress[i].state = state
                continue
            generated = self.folder(plan.model, names.GENERATED_DIR)
            argv = eval_argv(self.comparison, plan.model, generated, predict_only=True)
            gen_state = self._step(i, "generate", argv, generated, expected(self.comparison, plan, judged=False))
            if gen_state.status == names.RUN_COMPLETE:
                todo.append(i)
            self._save()
        if not todo:
            return True
        judge = judge_metadata(self.comparison.metadata)
        folders = [self.folder(self.plans[i].model, names.GENERATED_DIR) for i in todo]
        self.say(f"Batch API: the user turns of {len(todo)} model(s) at once; log {self.out / names.LOGS_DIR}/batch.log")
        finished = run_process(batch_argv(folders, judge, self.batch_args), self.out / names.LOGS_DIR / "batch.log")
        if finished.exit_code == EXIT_BATCH_PENDING:
            self.say("Batch API: batches are still running; run the same command again to collect them "
                     "(nothing is submitted twice)")
            return False
        if finished.exit_code != 0:
            raise CompareError(f"uta-batch exited {finished.exit_code}; the last lines of {finished.log}:\n"
                               f"{finished.tail()}")
        for i in todo:
            plan = self.plans[i]
            argv = rejudge_argv(self.folder(plan.model, names.GENERATED_DIR), self.folder(plan.model), judge)
            self.progress[i].state = self._step(i, "rejudge", argv, self.folder(plan.model),
                                                expected(self.comparison, plan, judged=True))
            self._save()
        return True
