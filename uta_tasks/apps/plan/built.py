"""The plan of the tasks lm-eval builds itself: ``uta:NAME`` (a wrapped lm-eval task or group),
a task from ``--include_path``, and any uta task that reads ``answers_from``.

Their documents are not the probe's own data sets, so the plan builds the tasks as the run
does: through lm-eval's own ``TaskManager`` (``--include_path`` and the wrapped tasks' folder
indexed, ``--model_args`` and ``--metadata`` handed to the tasks as lm-eval's command line hands
them) and their requests with ``--limit``, ``--samples``, ``--gen_kwargs``, ``--num_fewshot``,
``--system_instruction`` and ``--fewshot_as_multiturn``
(:func:`uta_tasks.lm_eval_compat.requests_without_model`, as ``uta-eval`` checks a saved run
before the model loads). The counts come from those requests.

With ``answers_from``, each task reads its saved run when it is built (a run the probe refuses is
refused here, with the same message), and every saved answer goes through the probe's own
decision (:func:`uta_tasks.probe.saved.continuation`) with the model's tokenizer alone: used as
saved, completed after a stop string, or completed after the saved run's budget, and the most
tokens each completion can take (the pass-1 budget fitted to the model's maximum length, less
the saved answer's tokens).
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uta_tasks.apps.plan.documents import PlanError, whole_sentences
from uta_tasks.schema.probe import COMPLETION_AFTER_BUDGET, COMPLETION_AFTER_STOP, COMPLETION_AS_SAVED, ProbeSpec

# --model_args keys that give the model's maximum length (hf: max_length, vllm: max_model_len)
_LENGTH_KEYS = ("max_length", "max_model_len")
# model config attributes lm-eval's hf model reads for its maximum length, in its order
_CONFIG_LENGTHS = ("n_positions", "max_position_embeddings", "n_ctx")
# a tokenizer's model_max_length above this is transformers' "no limit" sentinel
_NO_LIMIT = 10**9


@dataclass(frozen=True)
class Flags:
    """The run's lm-eval flags that decide which requests its tasks build.

    Attributes:
        model_args: ``--model_args``, parsed.
        include_path: ``--include_path`` (None: none).
        limit: ``--limit``.
        samples: ``--samples`` (task -> document ids), or None.
        gen_kwargs: ``--gen_kwargs``, parsed.
        num_fewshot: ``--num_fewshot``.
        system_instruction: ``--system_instruction``.
        fewshot_as_multiturn: ``--fewshot_as_multiturn``.
    """

    model_args: Mapping[str, Any]
    include_path: str | None = None
    limit: float | None = None
    samples: Mapping[str, Sequence[int]] | None = None
    gen_kwargs: Mapping[str, Any] | None = None
    num_fewshot: int | None = None
    system_instruction: str | None = None
    fewshot_as_multiturn: bool = False


@dataclass(frozen=True)
class SavedPlan:
    """What pass 1 does with the saved answers (``answers_from``), before anything runs.

    Attributes:
        files: the saved files the tasks read (samples or log files).
        answers: saved answers read, one per request.
        as_saved: used as saved (the model had ended them; nothing to continue).
        after_stop: continued after a stop string of the saved run.
        after_budget: continued after the saved run's token budget.
        incomplete: used as saved and flagged incomplete (the probe's budget is no larger).
        completions: completion requests the backend generates (greedy: identical ones once).
        largest: the most tokens one completion can take.
        total_tokens: the most tokens all completions can take.
        max_length: the model's maximum length the budgets were fitted to (None: not known).
        length_from: where ``max_length`` came from, in words.
        checked: whether the answers were measured (False: the tokenizer could not be loaded, or
            the saved run could not be read before the run: ``unread``).
        unread: why a saved run on the Hub could not be read before the run (offline, no access),
            or "" when it was read.
    """

    files: tuple[str, ...]
    answers: int
    as_saved: int = 0
    after_stop: int = 0
    after_budget: int = 0
    incomplete: int = 0
    completions: int = 0
    largest: int = 0
    total_tokens: int = 0
    max_length: int | None = None
    length_from: str = ""
    checked: bool = True
    unread: str = ""


@dataclass(frozen=True)
class Built:
    """The requests of the run's uta tasks, built by lm-eval.

    Attributes:
        specs: per request (repeats counted once), its task, doc id, repeats and probe spec.
        gen_kwargs: per request, its generation settings.
        other: asked-for tasks lm-eval built that are not uta tasks.
        saved: the saved answers' plan, or None without ``answers_from``.
    """

    specs: tuple[tuple[str, int, int, ProbeSpec], ...]
    gen_kwargs: tuple[dict[str, Any], ...]
    other: tuple[str, ...]
    saved: SavedPlan | None


def _wrapped(names: Sequence[str], include_path: str | None, folder: Path) -> list[str]:
    """``uta:NAME`` replaced by its wrapped family (written into ``folder``), as ``uta-eval`` does."""
    from uta_tasks.wrap import WrapError
    from uta_tasks.wrap.check import plan
    from uta_tasks.wrap.names import CLI_PREFIX, family_group, group_name
    from uta_tasks.wrap.yamls import write

    wrapped = [n[len(CLI_PREFIX):] for n in names if n.startswith(CLI_PREFIX)]
    if not wrapped:
        return list(names)
    try:
        wrap_plan = plan(wrapped, () if include_path is None else (include_path,))
        write(folder, wrap_plan, {})
    except WrapError as error:
        raise PlanError(str(error)) from None
    return [(group_name(n[len(CLI_PREFIX):]) if n[len(CLI_PREFIX):] in wrap_plan.groups
             else family_group(n[len(CLI_PREFIX):])) if n.startswith(CLI_PREFIX) else n for n in names]


def build(names: Sequence[str], metadata: Mapping[str, Any], flags: Flags) -> Built:
    """Build the run's tasks and requests as lm-eval does, without a model.

    Args:
        names: ``--tasks``.
        metadata: ``--metadata``.
        flags: the other flags that decide the requests.
    """
    from uta_tasks import TASKS_DIR
    from uta_tasks import lm_eval_compat as compat
    from uta_tasks.lm_eval_task import UTATask, UTATaskError
    from uta_tasks.probe import judging
    from uta_tasks.probe.hook import ProbeError

    with tempfile.TemporaryDirectory(prefix="uta-plan-wrap-") as tmp:
        asked = _wrapped(names, flags.include_path, Path(tmp))
        paths = [p for p in (flags.include_path, tmp) if p]
        if not compat.reads_task_entry_points():
            paths.append(str(TASKS_DIR))
        try:
            manager = compat.task_manager_class()(include_path=paths, metadata={**flags.model_args, **metadata})
            arguments = {"task_manager": manager, "tasks": asked, "gen_kwargs": dict(flags.gen_kwargs or {}),
                         "limit": flags.limit, "samples": dict(flags.samples or {}),
                         "num_fewshot": flags.num_fewshot, "system_instruction": flags.system_instruction,
                         "apply_chat_template": True, "fewshot_as_multiturn": flags.fewshot_as_multiturn}
            built: dict[str, Any] = {}

            def wanted(task: Any) -> bool:
                name = task.config.task
                built[name] = task
                return isinstance(task, UTATask)

            instances = compat.requests_without_model(arguments, wanted) or []
        except (UTATaskError, ProbeError) as error:
            raise PlanError(f"the run will refuse it: {error}") from None
        except Exception as error:  # noqa: BLE001 - lm-eval: a task it cannot find, or data it cannot load
            reason = whole_sentences(str(error)) if str(error).strip() else f"{type(error).__name__}."
            raise PlanError(f"lm-eval cannot build --tasks {','.join(names)}: {reason} A task's data set can be given "
                            "as local files: --metadata '{\"<task>_data_files\": \"/path/to/file.jsonl\"}'") from None
    decode = judging.judge_decoder()
    specs = tuple((i.task_name, int(i.doc_id), int(i.repeats or 1), ProbeSpec.from_dict(i.args[2], decode))
                  for i in instances)
    kwargs = tuple(dict(i.args[1]) for i in instances)
    other = tuple(n for n, t in built.items() if not isinstance(t, UTATask))
    uta = [t for t in built.values() if isinstance(t, UTATask)]
    saved = None
    if any(t.saved_run is not None for t in uta):
        files = tuple(dict.fromkeys(str(t.saved_run.samples) for t in uta if t.saved_run is not None))
        saved = _saved_plan(specs, kwargs, files, flags.model_args)
    return Built(specs, kwargs, other, saved)


def model_max_length(model_args: Mapping[str, Any], tokenizer: Any) -> tuple[int | None, str]:
    """The model's maximum length as lm-eval's ``hf`` model takes it, and where it came from:
    ``--model_args max_length`` / ``max_model_len``, else the model's config, else its
    tokenizer's ``model_max_length``; None when none says.

    Args:
        model_args: ``--model_args``, parsed.
        tokenizer: the model's tokenizer.
    """
    for key in _LENGTH_KEYS:
        if model_args.get(key):
            return int(model_args[key]), f"--model_args {key}"
    name = model_args.get("pretrained")
    if name:
        try:
            from transformers import AutoConfig

            config = AutoConfig.from_pretrained(str(name), trust_remote_code=bool(model_args.get("trust_remote_code")),
                                                **({"revision": str(model_args["revision"])}
                                                   if model_args.get("revision") else {}))
        except (ImportError, OSError, ValueError):
            config = None
        for attr in _CONFIG_LENGTHS:
            value = getattr(config, attr, None)
            if isinstance(value, int) and value > 0:
                return value, f"the model's config ({attr})"
    value = getattr(tokenizer, "model_max_length", None)
    if isinstance(value, int) and 0 < value < _NO_LIMIT:
        return value, "the tokenizer's model_max_length"
    return None, "unknown: pass --model_args max_length=N (hf) or max_model_len=N (vllm)"


def _saved_plan(specs: Sequence[tuple[str, int, int, ProbeSpec]], kwargs: Sequence[dict[str, Any]],
                files: tuple[str, ...], model_args: Mapping[str, Any]) -> SavedPlan:
    """Every saved answer through the probe's pass-1 checks and continuation, with the tokenizer alone."""
    from uta_tasks import lm_eval_compat as compat
    from uta_tasks.probe import budget, hook, saved, saved_precheck

    rows = [(spec, gen, repeats) for (_, _, repeats, spec), gen in zip(specs, kwargs, strict=True)
            if spec.saved is not None]
    tokenizer = saved_precheck.tokenizer_of(model_args)
    if tokenizer is None:
        return SavedPlan(files, sum(r for _, _, r in rows), checked=False)
    template_args = compat.model_chat_template_args(model_args)
    max_length, length_from = model_max_length(model_args, tokenizer)
    try:
        requests = [hook.resolve_one(spec, gen, tokenizer, template_args, {}) for spec, gen, _ in rows]
    except hook.ProbeError as error:
        raise PlanError(f"the run will refuse it: {error}") from None
    kept = [r for r in requests if not r.saved_dropped]
    try:
        fitted = budget.fit([(r.spec.saved.prompt, r.assistant_kwargs) for r in kept],  # type: ignore[union-attr]
                            tokenizer, max_length, what="pass 1", policy="drop",
                            tasks=[r.spec.task for r in kept])
    except budget.OverlongPromptError as error:
        raise PlanError(str(error)) from None
    fit_of = {id(r): f for r, f in zip(kept, fitted, strict=True)}
    kinds: Counter[str] = Counter()
    incomplete = 0
    todo: list[tuple[str, dict[str, Any], int]] = []
    for request, (_, _, repeats) in zip(requests, rows, strict=True):
        plan = saved.continuation(request, tokenizer, fit_of.get(id(request)))
        kinds[plan.kind] += repeats
        incomplete += repeats if plan.incomplete else 0
        if plan.budget > 0:
            text = request.spec.saved.prompt + request.spec.saved.text  # type: ignore[union-attr]
            todo.append((text, {**request.assistant_kwargs, "max_gen_toks": plan.budget}, repeats))
    budgets = saved.generations(todo)
    return SavedPlan(files, sum(r for _, _, r in rows), kinds[COMPLETION_AS_SAVED], kinds[COMPLETION_AFTER_STOP],
                     kinds[COMPLETION_AFTER_BUDGET], incomplete, len(budgets), max(budgets, default=0),
                     sum(budgets), max_length, length_from)
