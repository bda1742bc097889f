"""What makes two runs comparable: the one table of every setting that changes the measurement.

Each :class:`Setting` says how its value is read from a run (:func:`read_settings`), the
value of a run made before the setting existed (or that records it nowhere), which pass of
the probe it changes (``answer``: pass 1 and so the accuracy too; ``follow-up``: only the
user turn and its verdict), and which comparisons it guards:

* ``gate``: ``uta-gate --baseline`` refuses to compare runs that differ in it (the default
  ``settings.same`` is every gate entry, :data:`GATE_KEYS`);
* ``calibration``: a judge calibration set applies only to runs judged the same way;
* ``paper``: a run differing from the paper's value is "not comparable" with a published
  cell (``uta-gate --paper``, the report's paper section), the setting named.

The values are written per task in ``summary.json``'s provenance under the same keys.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from uta_tasks.judge.errors import JudgeConfigError
from uta_tasks.judge.settings import JudgeSettings, judging_enabled
from uta_tasks.probe.task_settings import SPECS as TASK_SETTING_SPECS
from uta_tasks.runs.facts import number
from uta_tasks.runs.task_run import TaskRun
from uta_tasks.schema import output
from uta_tasks.schema.probe import LEGACY_DEFAULTS

Guard = Literal["gate", "calibration", "paper"]
GATE: Guard = "gate"
CALIBRATION: Guard = "calibration"
PAPER: Guard = "paper"
Stage = Literal["answer", "follow-up"]
# Where a value was read from (``summary.json`` names it for the judge's model and prompt).
SOURCE_SAMPLES, SOURCE_METADATA, SOURCE_DEFAULT, SOURCE_BEFORE = "samples", "metadata", "default", "before"
_TASK_DEFAULTS = {spec.key: spec.default for spec in TASK_SETTING_SPECS}
# ``user_temperature`` unset: the user turn at the answer's temperature, as in the paper.
_SAME_TEMPERATURE = "the answer's"


@dataclass(frozen=True)
class Setting:
    """One setting that changes the measurement.

    Attributes:
        key: its name (``summary.json`` provenance key, gate ``same:`` entry).
        doc: how it is read from a run, in words (the manual's table).
        read: ``task -> (value, source)``.
        before: the value of a run made before the setting existed, or that records it nowhere.
        stage: ``answer`` (pass 1, accuracy included) or ``follow-up`` (pass 2 and the judge).
        guards: the comparisons it guards (``gate``, ``calibration``, ``paper``).
        paper: the paper's value, for a ``paper`` entry the reference does not state itself.
        perturbations: the perturbations whose measurement it changes (None: every task).
    """

    key: str
    doc: str
    read: Callable[[TaskRun], tuple[Any, str]]
    before: Any
    stage: Stage
    guards: frozenset[Guard]
    paper: Any = None
    perturbations: tuple[str, ...] | None = None


def _meta(task: TaskRun) -> dict[str, Any]:
    return dict(task.config.get("metadata") or {})


def _seen(task: TaskRun, key: str) -> list[Any]:
    """The distinct values the task's records show of a setting, in doc order (what one record
    shows: :data:`uta_tasks.runs.facts.RECORD_VALUES`); empty without logged records."""
    return [] if task.facts is None or not task.facts.records else task.facts.seen(key)


def _logged(task: TaskRun) -> bool:
    return task.facts is not None and task.facts.records > 0


def one_value(values: Iterable[Any]) -> Any:
    """A single value, a sorted list when they differ, or None when there is none."""
    clean = list(dict.fromkeys(v for v in values if v is not None))
    if not clean:
        return None
    return clean[0] if len(clean) == 1 else sorted(clean, key=str)


def _judged(task: TaskRun) -> tuple[Any, str]:
    """Verdicts in the records, else judge metrics in the results, else the metadata (read
    by :func:`~uta_tasks.judge.settings.judging_enabled`, the one rule for "judge off")."""
    if _logged(task):
        return True in _seen(task, output.PROV_JUDGED), SOURCE_SAMPLES
    if any(m in task.values for m in (output.GENUINE, output.GENUINE_REFERENCE, output.UNJUDGED)):
        return True, SOURCE_METADATA
    judge = {k: v for k, v in _meta(task).items() if k == output.META_JUDGE or k.startswith("judge_")}
    try:
        return judging_enabled(judge, environ={}), SOURCE_METADATA
    except JudgeConfigError:  # a setting this version no longer reads: the run judged with something
        return True, SOURCE_METADATA


def _from_verdicts(key: str, meta_key: str, default: Callable[[], Any]) -> Callable[[TaskRun], tuple[Any, str]]:
    def reader(task: TaskRun) -> tuple[Any, str]:
        if not _judged(task)[0]:
            return None, SOURCE_DEFAULT
        logged = one_value(_seen(task, key))
        if logged is not None:
            return logged, SOURCE_SAMPLES
        meta = _meta(task)
        if meta.get(meta_key) is not None:
            return meta[meta_key], SOURCE_METADATA
        return default(), SOURCE_DEFAULT
    return reader


def _judge_temperature(task: TaskRun) -> tuple[Any, str]:
    meta = _meta(task)
    if output.META_JUDGE_TEMPERATURE in meta:
        return number(meta[output.META_JUDGE_TEMPERATURE]), SOURCE_METADATA
    return JudgeSettings().temperature, SOURCE_DEFAULT


def _temperature(task: TaskRun) -> tuple[Any, str]:
    if _logged(task):
        return one_value(_seen(task, "temperature")), SOURCE_SAMPLES
    gen_kwargs = task.config.get("generation_kwargs") or {}
    return number(gen_kwargs.get(output.GEN_TEMPERATURE, 0.0)), SOURCE_METADATA


def _record_mode(key: str) -> Callable[[TaskRun], tuple[Any, str]]:
    """``pass2_context`` / ``truncate_scope``: the records (a record older than version 3 did
    what :data:`~uta_tasks.schema.probe.LEGACY_DEFAULTS` says unless its role switch names
    it), else the task's metadata, else the value of a run from before the setting."""
    def reader(task: TaskRun) -> tuple[Any, str]:
        if _logged(task):
            return one_value(_seen(task, key)), SOURCE_SAMPLES
        return _task_setting(key, LEGACY_DEFAULTS[key])(task)
    return reader


def _task_setting(key: str, before: Any) -> Callable[[TaskRun], tuple[Any, str]]:
    """A task setting from the task's metadata (a run of this version dumps every one), else ``before``."""
    def reader(task: TaskRun) -> tuple[Any, str]:
        meta = _meta(task)
        if key in meta and meta[key] is not None:
            return meta[key], SOURCE_METADATA
        return before, SOURCE_BEFORE
    return reader


def _user_samples(task: TaskRun) -> tuple[Any, str]:
    if _logged(task):
        return max(_seen(task, "user_samples")), SOURCE_SAMPLES
    value, source = _task_setting("user_samples", 1)(task)
    return int(value), source


def _question_pool(task: TaskRun) -> tuple[Any, str]:
    if task.perturbation != "question":
        return None, SOURCE_DEFAULT
    found = one_value(_seen(task, "question_pool"))
    if found is not None:
        return found, SOURCE_SAMPLES
    return _task_setting("question_pool", "question_pool_v1")(task)


def _model_arg(task: TaskRun, key: str) -> Any:
    args = task.model_args
    if isinstance(args, str):
        args = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    return args.get(key) if isinstance(args, dict) else None


def _answer_budget(task: TaskRun) -> tuple[Any, str]:
    cli = task.gen_kwargs
    if isinstance(cli, str):
        cli = dict(part.split("=", 1) for part in cli.split(",") if "=" in part)
    if isinstance(cli, dict) and cli.get("max_gen_toks") is not None:
        return int(cli["max_gen_toks"]), SOURCE_METADATA
    gen_kwargs = task.config.get("generation_kwargs") or {}
    return (int(gen_kwargs["max_gen_toks"]), SOURCE_METADATA) if "max_gen_toks" in gen_kwargs else (None, SOURCE_BEFORE)


def _thinking(task: TaskRun) -> tuple[Any, str]:
    value = _model_arg(task, "enable_thinking")
    if value is None:
        return "template default", SOURCE_DEFAULT
    return str(value).lower() not in ("false", "0", "no", "off"), SOURCE_METADATA


def _data(task: TaskRun) -> tuple[Any, str]:
    meta = _meta(task)
    keys = [f"{task.benchmark}_data_files", f"{task.benchmark}_dataset_path", f"{task.benchmark}_unverifiable"]
    found = {k: meta[k] for k in keys if meta.get(k) is not None}
    return (found or "packaged source"), (SOURCE_METADATA if found else SOURCE_DEFAULT)


def _n_docs(task: TaskRun) -> tuple[Any, str]:
    return task.n_docs, SOURCE_METADATA


def _system_instruction(task: TaskRun) -> tuple[Any, str]:
    return task.system_instruction, SOURCE_METADATA


_ALL: frozenset[Guard] = frozenset((GATE, CALIBRATION, PAPER))
_GATE_PAPER: frozenset[Guard] = frozenset((GATE, PAPER))
_GATE_ONLY: frozenset[Guard] = frozenset((GATE,))

SETTINGS: tuple[Setting, ...] = (
    Setting(output.PROV_JUDGED, "verdicts in the records, else judge metrics in the results, else `judging_enabled` "
            "of the task's judge metadata", _judged, True, "follow-up", _GATE_PAPER, True),
    Setting("judge_model", "the verdicts' `judge_model`, else `--metadata judge_model`, else the package default",
            _from_verdicts("judge_model", output.META_JUDGE_MODEL, lambda: JudgeSettings().model),
            None, "follow-up", _ALL),
    Setting("prompt_version", "the verdicts' `prompt_version`, else `--metadata judge_prompt`, else the package "
            "default", _from_verdicts("prompt_version", output.META_JUDGE_PROMPT, lambda: JudgeSettings().prompt),
            None, "follow-up", _ALL),
    Setting("judge_temperature", "`--metadata judge_temperature`, else the package default", _judge_temperature,
            None, "follow-up", frozenset((GATE, CALIBRATION))),
    Setting("temperature", "pass 1's temperature in the records, else the task's `generation_kwargs`", _temperature,
            0.0, "answer", _GATE_ONLY),
    Setting("pass2_context", "the records, else `--metadata`, else `template` (what records before version 3 did)",
            _record_mode("pass2_context"), LEGACY_DEFAULTS["pass2_context"], "follow-up", _GATE_PAPER, "trace"),
    Setting("truncate_scope", "the records, else `--metadata`, else `final_answer` (records before version 3)",
            _record_mode("truncate_scope"), LEGACY_DEFAULTS["truncate_scope"], "follow-up", _GATE_PAPER,
            "response", ("trunc",)),
    Setting("user_samples", "user turns drawn per answer in the records, else `--metadata`, else 1", _user_samples,
            1, "follow-up", _GATE_PAPER, 1),
    Setting("user_temperature", "`--metadata user_temperature` (the user turn sampled at its own temperature), "
            "else the answer's", _task_setting("user_temperature", _SAME_TEMPERATURE), _SAME_TEMPERATURE, "follow-up",
            _GATE_PAPER, _SAME_TEMPERATURE),
    Setting("question_pool", "`question` tasks: the records' pool, else `--metadata`, else `question_pool_v1`",
            _question_pool, "question_pool_v1", "follow-up", _GATE_ONLY, None, ("question",)),
    Setting("question_seed", "`--metadata question_seed`, else 0", _task_setting("question_seed", 0), 0,
            "follow-up", _GATE_ONLY),
    Setting("role_switch", "`--metadata role_switch`, else `auto`", _task_setting("role_switch", "auto"), "auto",
            "follow-up", _GATE_ONLY),
    Setting("user_max_gen_toks", "`--metadata user_max_gen_toks`, else the package default",
            _task_setting("user_max_gen_toks", _TASK_DEFAULTS["user_max_gen_toks"]),
            _TASK_DEFAULTS["user_max_gen_toks"], "follow-up", _GATE_ONLY),
    Setting("overlong", "`--metadata overlong` (`drop` leaves docs out), else `error`",
            _task_setting("overlong", "error"), "error", "answer", _GATE_ONLY),
    Setting("max_gen_toks", "the answer's token budget: `--gen_kwargs max_gen_toks`, else the task's "
            "`generation_kwargs`", _answer_budget, None, "answer", _GATE_ONLY),
    Setting("thinking", "`enable_thinking` in `--model_args`, else the chat template's default", _thinking,
            "template default", "answer", _GATE_ONLY),
    Setting("system_instruction", "lm-eval's `--system_instruction`", _system_instruction, None, "answer",
            _GATE_ONLY),
    Setting("data", "the data set: `<benchmark>_data_files`, `_dataset_path`, `_unverifiable` in `--metadata`, "
            "else the packaged source", _data, "packaged source", "answer", _GATE_ONLY),
    Setting("n_docs", "documents evaluated (lm-eval's effective n-samples); the gate pairs docs itself",
            _n_docs, None, "answer", frozenset((PAPER,))),
)
KEYS = tuple(s.key for s in SETTINGS)
GATE_KEYS = tuple(s.key for s in SETTINGS if GATE in s.guards)
CALIBRATION_KEYS = tuple(s.key for s in SETTINGS if CALIBRATION in s.guards)
BY_KEY = {s.key: s for s in SETTINGS}
# The judge's identity in provenance carries where it was read from.
SOURCED = ("judge_model", "prompt_version")


def read_settings(task: TaskRun) -> dict[str, Any]:
    """Every setting of :data:`SETTINGS` for one task, plus ``<key>_source`` for :data:`SOURCED`.

    Args:
        task: a task of a run.
    """
    out: dict[str, Any] = {}
    for setting in SETTINGS:
        value, source = setting.read(task)
        out[setting.key] = value
        if setting.key in SOURCED:
            out[f"{setting.key}_source"] = source
    return out


def differences(a: Mapping[str, Any], b: Mapping[str, Any], keys: Iterable[str]) -> list[str]:
    """The settings of ``keys`` whose values differ between two tasks' provenance, each as
    ``key a vs b``; a key missing from a provenance written before it existed takes the
    setting's ``before`` value.

    Args:
        a: one task's settings (:func:`read_settings` or ``summary.json``).
        b: the other's.
        keys: the settings compared.
    """
    out = []
    for key in keys:
        before = BY_KEY[key].before if key in BY_KEY else None
        va, vb = a.get(key, before), b.get(key, before)
        if va != vb:
            out.append(f"{key} {va!r} vs {vb!r}")
    return out


_LABELS = {"judge_model": "judge model", "prompt_version": "judge prompt"}


def not_comparable_to(values: Mapping[str, Any], expected: Mapping[str, tuple[Callable[[Any], bool], str]],
                      perturbation: str, accuracy_only: bool = False) -> list[str]:
    """Why a task is not comparable with a published cell: each ``paper`` setting whose value
    is not the paper's, named with the run's value and the paper's (``n_docs`` is checked
    against each cell's own N by the caller).

    Args:
        values: the task's settings (:func:`read_settings`).
        expected: setting key -> (whether a value is the paper's, the paper's value in words);
            entries without one compare with :attr:`Setting.paper`.
        perturbation: the task's perturbation (a setting of another perturbation does not apply).
        accuracy_only: the cell is an accuracy: only settings of the ``answer`` stage apply.
    """
    out = []
    judged = values.get(output.PROV_JUDGED, True)
    for setting in SETTINGS:
        if PAPER not in setting.guards or setting.key == "n_docs":
            continue
        if accuracy_only and setting.stage != "answer":
            continue
        if setting.perturbations is not None and perturbation not in setting.perturbations:
            continue
        if setting.key == output.PROV_JUDGED:
            if not judged:
                out.append("not judged")
            continue
        if not judged and setting.key in SOURCED:
            continue
        value = values.get(setting.key, setting.before)
        if setting.key in expected:
            ok, want = expected[setting.key]
            same = ok(value)
        else:
            same, want = value == setting.paper, str(setting.paper)
        if not same:
            out.append(f"{_LABELS.get(setting.key, setting.key)} {value}, the paper's {want}")
    return out


def table_markdown() -> str:
    """The table as Markdown (key, how it is read, value before it existed, stage, guards)."""
    lines = ["| setting | read from a run | before it existed | changes | tasks | guards |",
             "|---|---|---|---|---|---|"]
    for s in SETTINGS:
        tasks = ", ".join(s.perturbations) if s.perturbations else "all"
        lines.append(f"| `{s.key}` | {s.doc} | `{s.before}` | {s.stage} | {tasks} | {', '.join(sorted(s.guards))} |")
    return "\n".join(lines) + "\n"
