"""A run's plan before the run: documents, generations, budgets, judge calls, tokens and cost.

Nothing here loads a model or calls a judge. It reads the uta task files, the judge's prompt
template and each benchmark's documents as its task would
(:func:`uta_tasks.apps.plan.documents.load_documents`), and so contacts what those loaders
contact (:func:`uta_tasks.apps.plan.documents.contacts`): the Hugging Face Hub for a data set
not given as files (unless ``HF_HUB_OFFLINE=1``), a data URL, and, for IFEval and IFBench,
NLTK's data index when the NLTK data their documents need is missing and downloads are on.
The counts follow the probe's own rules
(:mod:`uta_tasks.probe.hook`, :mod:`uta_tasks.probe.backend`, :mod:`uta_tasks.probe.judging`):

* **greedy** (T = 0): identical requests are generated once. A benchmark's tasks share one
  answer per doc, the unperturbed user turn is generated once (u of ``uta_<b>`` and u_ref
  of every perturbed task), and each perturbed task adds one user turn per doc. The judge
  reads each distinct (context, u) once: one item per user turn, plus the real next user
  turn of a held-out doc. Repeats merge.
* **sampled** (T > 0): nothing is merged but the real next user turn of a held-out doc
  (the same text in every task and repeat). Each task and repeat generates its own answer,
  ``user_samples`` user turns after it, and u_ref on a perturbed task.

These are the counts before lm-eval's request cache, the judge cache and pre-labels, with
every doc fitting the model (``overlong: drop`` and texts that happen to be identical can
only lower them).

Judge tokens are estimated from the real prompt template rendered around the real
documents (:data:`uta_tasks.judge.prompt.CHARS_PER_TOKEN` characters per token): the fixed part (instructions,
question, a held-out doc's given answer and real next turn) is measured; the answer and
user turn the judge will read are not known before the run, so they enter as bounds (empty,
or at their token budgets) or as lengths the user assumes.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from uta_tasks.apps.plan.built import Built, Flags, SavedPlan, build
from uta_tasks.apps.plan.documents import HUB, Documents, PlanError, judge_prompt_chars, load_documents
from uta_tasks.apps.plan.plans import BenchmarkPlan, Plan
from uta_tasks.probe.task_settings import TaskSettings
from uta_tasks.schema.generation import is_greedy

log = logging.getLogger(__name__)

# ---- the run's tasks -----------------------------------------------------------------


@lru_cache(maxsize=1)
def _task_index() -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, ...]]]:
    """The uta tasks (name -> benchmark, perturbation) and groups (name -> tasks), read from
    the task folder's YAML files (lm-eval's ``!function`` tags are not needed for this)."""
    import yaml

    from uta_tasks import TASKS_DIR

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    tasks: dict[str, tuple[str, str]] = {}
    groups: dict[str, tuple[str, ...]] = {}
    for path in sorted(Path(TASKS_DIR).rglob("*.yaml")):
        data = yaml.load(path.read_text(), Loader=_Loader)  # noqa: S506 - a SafeLoader that drops tags
        if not isinstance(data, dict):
            continue
        meta = data.get("metadata") or {}
        if "group" in data:
            groups[str(data["group"])] = tuple(str(t) for t in data.get("task") or ())
        elif "uta_benchmark" in meta:
            tasks[str(data["task"])] = (str(meta["uta_benchmark"]), str(meta.get("uta_perturbation", "none")))
    return tasks, groups


def expand(names: Sequence[str]) -> tuple[list[tuple[str, str, str]], list[str]]:
    """The uta tasks of ``--tasks`` (groups expanded, each once, in order) and the other names.

    Args:
        names: the task and group names.
    """
    tasks, groups = _task_index()
    found: dict[str, tuple[str, str, str]] = {}
    other: list[str] = []

    def visit(name: str) -> None:
        if name in groups:
            for member in groups[name]:
                visit(member)
        elif name in tasks:
            found.setdefault(name, (name, *tasks[name]))
        elif name not in other:
            other.append(name)

    for name in names:
        visit(name)
    return list(found.values()), other


# ---- counts --------------------------------------------------------------------------


def count(benchmark: str, perturbations: Sequence[str], docs: Documents, *, held_out: bool, greedy: bool,
          repeats: int, user_samples: int) -> tuple[int, int, int, int, int]:
    """Generations and judge items of one benchmark's tasks (see the module docstring).

    Returns:
        ``(pass1, pass2, judge items, items with a generated answer, items with a generated u)``.
    """
    n = docs.n
    perturbed = sum(1 for p in perturbations if p != "none")
    reference = n if held_out else 0
    if greedy:
        pass1 = 0 if held_out else n
        pass2 = n * (1 + perturbed)
    else:
        pass1 = 0 if held_out else n * repeats * len(perturbations)
        pass2 = n * repeats * (user_samples * len(perturbations) + perturbed)
    return pass1, pass2, pass2 + reference, 0 if held_out else pass2, pass2


def _fixed_chars(docs: Documents, pass2: int, held_out: bool) -> int:
    """Characters of the judge prompts with unknown texts empty: each generated user turn
    carries its doc's context once over (``pass2 / n`` times per doc)."""
    if docs.n == 0:
        return 0
    per_doc = pass2 // docs.n
    return docs.fixed_chars.get("u", 0) * per_doc + (docs.fixed_chars.get("reference", 0) if held_out else 0)


def _judge(meta: Mapping[str, Any], predict_only: bool) -> tuple[Any, bool, Any]:
    """The judge settings (parsed once: they decide "judge off" too), whether it runs, its template."""
    from uta_tasks.judge import JudgeSettings
    from uta_tasks.judge.prompt import load_template

    judge = JudgeSettings.from_metadata({k: v for k, v in meta.items() if k == "judge" or k.startswith("judge_")})
    return judge, not predict_only and judge.enabled, load_template(judge.prompt)


def _needs_lm_eval(task_names: Sequence[str], meta: Mapping[str, Any], flags: Flags | None) -> bool:
    """Whether lm-eval must build the tasks: a wrapped ``uta:NAME``, a task folder of the user's, or
    saved answers (each task reads its saved run when it is built)."""
    from uta_tasks.wrap.names import CLI_PREFIX

    return (any(n.startswith(CLI_PREFIX) for n in task_names) or bool(flags and flags.include_path)
            or bool(TaskSettings.from_metadata("uta-eval --metadata", meta).answers_from))


def make_plan(task_names: Sequence[str], *, metadata: Mapping[str, Any] | None = None, gen_kwargs: Mapping[str, Any]
              | None = None, limit: float | None = None, predict_only: bool = False, flags: Flags | None = None) -> Plan:
    """The plan of ``lm_eval --tasks ...`` with these flags.

    Args:
        task_names: ``--tasks`` (uta tasks and groups, ``uta:NAME``, tasks of ``--include_path``;
            other names are listed as not planned).
        metadata: ``--metadata`` (task, data and judge settings).
        gen_kwargs: ``--gen_kwargs``, over the uta tasks' own ``generation_kwargs``.
        limit: ``--limit``.
        predict_only: ``--predict_only`` (no judge).
        flags: the other lm-eval flags that decide the requests (``--model_args``,
            ``--include_path``, ``--samples``, ...), for the tasks lm-eval builds.
    """
    from uta_tasks import TASKS_DIR
    from uta_tasks import lm_eval_compat as compat
    from uta_tasks.datasets import BENCHMARKS

    meta = dict(metadata or {})
    if _needs_lm_eval(task_names, meta, flags):
        flags = Flags({}) if flags is None else flags
        flags = replace(flags, limit=limit, gen_kwargs=gen_kwargs)
        try:
            return _built_plan(build(task_names, meta, flags), meta, predict_only, task_names)
        except PlanError as error:
            return _unread_hub_plan(task_names, meta, flags, predict_only, error)
    uta, other = expand(task_names)
    if not uta:
        raise PlanError(f"--tasks {','.join(task_names)} names no uta task or group; see `uta-eval ls tasks`")
    base = compat.load_task_yaml(Path(TASKS_DIR) / "_default_template_yaml")
    kwargs = {**(base.get("generation_kwargs") or {}), **dict(gen_kwargs or {})}
    repeats = int(base.get("repeats") or 1)
    settings = TaskSettings.from_metadata(uta[0][0], meta)
    judge, judged, template = _judge(meta, predict_only)
    greedy = is_greedy(kwargs)
    by_bench: dict[str, list[tuple[str, str]]] = {}
    for name, bench, perturbation in uta:
        by_bench.setdefault(bench, []).append((name, perturbation))
    plans = []
    for bench, members in by_bench.items():
        docs = load_documents(bench, meta, limit, template)
        held_out = BENCHMARKS[bench].reference_user_turn is not None
        pass1, pass2, items, answers, users = count(bench, [p for _, p in members], docs, held_out=held_out,
                                                    greedy=greedy, repeats=repeats,
                                                    user_samples=settings.user_samples)
        pass1 = 0 if settings.answers_from else pass1
        plans.append(BenchmarkPlan(
            bench, tuple(n for n, _ in members), docs, pass1, pass2, items if judged else 0,
            answers if judged else 0, users if judged else 0,
            _fixed_chars(docs, pass2, held_out) if judged else 0,
        ))
    return Plan(
        benchmarks=tuple(plans), skipped=tuple(other), greedy=greedy, repeats=repeats,
        user_samples=settings.user_samples, max_gen_toks=int(kwargs.get("max_gen_toks", 0)),
        user_max_gen_toks=settings.user_max_gen_toks, judged=judged, judge_model=judge.model,
        judge_prompt=judge.prompt, judge_max_tokens=judge.max_tokens, answers_from=settings.answers_from,
    )


def _unread_hub_plan(task_names: Sequence[str], meta: Mapping[str, Any], flags: Flags, predict_only: bool,
                     error: PlanError) -> Plan:
    """The plan of a run whose saved answers are on the Hub but could not be read now (offline, no
    access yet): the same tasks counted without them, the answers neither generated nor measured, and
    why. Any other refusal stands: the run would refuse it too."""
    from uta_tasks.saved_answers.hub import is_hub

    saved = TaskSettings.from_metadata("uta-eval --metadata", meta).answers_from
    if not saved or not is_hub(saved):
        raise error
    rest = {k: v for k, v in meta.items() if k != "answers_from"}
    plan = make_plan(task_names, metadata=rest, gen_kwargs=flags.gen_kwargs, limit=flags.limit,
                     predict_only=predict_only, flags=flags)
    answers = plan.pass1
    unread = SavedPlan((), answers, checked=False, unread=str(error))
    return replace(plan, benchmarks=tuple(replace(b, pass1=0) for b in plan.benchmarks), answers_from=saved,
                   saved=unread)


def _lm_eval_contacts(meta: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """What building the tasks through lm-eval may contact: the Hub for a data set that is not a
    local file, and for ``answers_from`` on the Hub (its samples files, into the Hugging Face cache)."""
    import datasets

    from uta_tasks.saved_answers.hub import is_hub

    if datasets.config.HF_HUB_OFFLINE:
        return ()
    saved = TaskSettings.from_metadata("uta-eval --metadata", meta).answers_from
    found = [(HUB, "a task's data set that is not a local file")]
    if saved and is_hub(saved):
        found.append((HUB, f"the samples files of {saved}, kept in the Hugging Face cache"))
    return tuple(found)


def _built_plan(built: Built, meta: Mapping[str, Any], predict_only: bool, task_names: Sequence[str]) -> Plan:
    """The plan of the requests lm-eval built (:func:`uta_tasks.apps.plan.built.build`), counted
    by the same rules as the probe's own tasks."""
    if not built.specs:
        raise PlanError(f"--tasks {','.join(task_names)} builds no uta task; see `uta-eval ls tasks`, or wrap an "
                        "lm-eval generation task as uta:NAME")
    judge, judged, template = _judge(meta, predict_only)
    first, kwargs = built.specs[0][3], built.gen_kwargs[0]
    greedy = is_greedy(kwargs)
    repeats = max(r for _, _, r, _ in built.specs)
    by_bench: dict[str, dict[str, tuple[str, dict[int, Any]]]] = {}
    for task, doc_id, _, spec in built.specs:
        tasks = by_bench.setdefault(spec.benchmark, {})
        tasks.setdefault(task, (spec.perturbation, {}))[1].setdefault(doc_id, spec)
    plans = []
    for bench, tasks in by_bench.items():
        docs = next(iter(tasks.values()))[1]
        held_out = next(iter(docs.values())).given_answer is not None
        chars = {"u": 0, "reference": 0}
        for spec in docs.values():
            turns = [*((m["role"], str(m["content"])) for m in spec.messages), ("assistant", spec.given_answer or "")]
            chars["u"] += judge_prompt_chars(template, turns, "")
            if spec.reference_user_turn is not None:
                chars["reference"] += judge_prompt_chars(template, turns, spec.reference_user_turn)
        documents = Documents(len(docs), True, "built by lm-eval as the run builds them", chars, _lm_eval_contacts(meta))
        pass1, pass2, items, answers, users = count(bench, [p for p, _ in tasks.values()], documents,
                                                    held_out=held_out, greedy=greedy, repeats=repeats,
                                                    user_samples=first.user_samples)
        plans.append(BenchmarkPlan(
            bench, tuple(tasks), documents, 0 if built.saved is not None else pass1, pass2, items if judged else 0,
            answers if judged else 0, users if judged else 0, _fixed_chars(documents, pass2, held_out) if judged else 0,
        ))
    return Plan(
        benchmarks=tuple(plans), skipped=built.other, greedy=greedy, repeats=repeats, user_samples=first.user_samples,
        max_gen_toks=int(kwargs.get("max_gen_toks", 0)), user_max_gen_toks=first.user_max_gen_toks, judged=judged,
        judge_model=judge.model, judge_prompt=judge.prompt, judge_max_tokens=judge.max_tokens,
        answers_from=TaskSettings.from_metadata("uta-eval --metadata", meta).answers_from, saved=built.saved,
    )
