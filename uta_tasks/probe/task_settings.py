"""The probe's task settings: one spec per setting, parsed once per task into a frozen object.

Each :class:`TaskSettingSpec` holds a setting's key, kind, default, choices and one-line doc.
:meth:`TaskSettings.from_metadata` validates a task's ``--metadata`` against them once (the
task then reads the frozen object for every doc), and :func:`settings_table_markdown`
renders the table of the manual's settings page (``docs/settings.md``, between the
``task-settings`` markers; a test keeps the copy equal). The judge's settings have their
own table (:mod:`uta_tasks.judge.setting_specs`); the data settings (``<b>_data_files``,
...) belong to :mod:`uta_tasks.datasets`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from uta_tasks.probe.budget import OVERLONG_CHOICES
from uta_tasks.probe.perturb import DEFAULT_QUESTION_POOL, TRUNCATE_SCOPES, question_pools
from uta_tasks.probe.role_switch import ROLE_SWITCHES
from uta_tasks.probe.trace import PASS2_CONTEXTS
from uta_tasks.schema.data import NLTK_DOWNLOADS
from uta_tasks.schema.probe import ANSWERS_FROM_SETTINGS_KEYS, DEFAULT_USER_MAX_GEN_TOKS, PROMPT_MISMATCH_CHOICES


class TaskSettingError(ValueError):
    """A task setting has a bad value; the message names the task, the key and the fix."""


Kind = Literal["choice", "int", "positive", "ks", "path", "temperature", "object"]
# ``metrics``: the headline rows only (accuracy, genuine_followup and its base/diff, share_changed,
# unjudged; uta_tasks.metrics.table.HEADLINE), or every row of uta_tasks.metrics.table.
METRICS_CHOICES = ("headline", "full")


@dataclass(frozen=True)
class TaskSettingSpec:
    """One task setting.

    Attributes:
        key: the ``--metadata`` key (and the :class:`TaskSettings` field).
        kind: ``choice`` (one of ``choices``), ``int``, ``positive`` (an int >= 1), ``ks``
            (the ``pass_at_k`` list), ``path`` (a file or folder; unset by default),
            ``temperature`` (a number >= 0; unset by default) or ``object`` (a JSON object whose
            keys are ``choices``; unset by default).
        default: the value when the key is absent.
        doc: what it does, as Markdown (one line of the manual's table).
        choices: the allowed values of a ``choice`` (the keys of an ``object``), computed when
            asked (the cue pools are the files that ship).
    """

    key: str
    kind: Kind
    default: Any
    doc: str
    choices: Callable[[], tuple[str, ...]] | None = None


SPECS: tuple[TaskSettingSpec, ...] = (
    TaskSettingSpec("pass2_context", "choice", PASS2_CONTEXTS[0],
                    "`trace`: pass 2 is the pass-1 prompt + a' as generated + the template's end-of-turn marker + "
                    "user header (the paper); `template`: `[q, a']` re-rendered through the template "
                    "([parity](parity.md))", lambda: PASS2_CONTEXTS),
    TaskSettingSpec("truncate_scope", "choice", TRUNCATE_SCOPES[0],
                    "`response`: truncation counts and cuts every token of a, reasoning included (the paper); "
                    "`final_answer`: the final answer only", lambda: TRUNCATE_SCOPES),
    TaskSettingSpec("role_switch", "choice", ROLE_SWITCHES[0],
                    "how the user header and stop strings are found (and, under `template`, the history "
                    "rendered): `auto` detects `harmony` or `glm4` from the chat template, else `sentinel`",
                    lambda: ROLE_SWITCHES),
    TaskSettingSpec("user_max_gen_toks", "positive", DEFAULT_USER_MAX_GEN_TOKS,
                    "token limit of the generated user turn (a setting rather than a gen kwarg, because "
                    "`--gen_kwargs` reach every task of the run)"),
    TaskSettingSpec("user_samples", "positive", 1,
                    "user turns drawn after each a' (needs T > 0); adds `genuine_prob` and makes "
                    "`genuine_pass_at_k` the unbiased pass@k over them"),
    TaskSettingSpec("pass_at_k", "ks", (),
                    "k values (`\"1,4\"`, each <= `user_samples`) of extra `genuine_pass_at_<k>` metrics"),
    TaskSettingSpec("question_seed", "int", 0,
                    "seed of the reproducible per-doc draw of the appended cue (hash of seed and q)"),
    TaskSettingSpec("question_pool", "choice", DEFAULT_QUESTION_POOL,
                    "cue pool of `_question` tasks: `question_pool_v2` (open-ended, reconstructed around the "
                    "paper's two examples) or `question_pool_v1`",
                    lambda: tuple(dict.fromkeys((DEFAULT_QUESTION_POOL, *question_pools())))),
    TaskSettingSpec("overlong", "choice", OVERLONG_CHOICES[0],
                    "a prompt that does not fit the model's maximum length: `error` stops the run before that "
                    "pass generates; `drop` drops the doc, counts it in `overlong` and leaves it out of every "
                    "other metric", lambda: OVERLONG_CHOICES),
    TaskSettingSpec("metrics", "choice", METRICS_CHOICES[0],
                    "which metrics go into lm-eval's results and table: `headline` (the benchmark's accuracy, "
                    "`genuine_followup`, `_base`, `_diff`, `share_changed`, `unjudged`) or `full` (every row of "
                    "[Metrics](metrics.md): label shares, judge usage, pass@k, ...)", lambda: METRICS_CHOICES),
    TaskSettingSpec("nltk_download", "choice", NLTK_DOWNLOADS[0],
                    "IFEval and IFBench: `auto` downloads the NLTK data their checks need and lack into NLTK's "
                    "folder before generating (as lm-eval's `ifeval` does), unless `HF_HUB_OFFLINE=1`; `off` never "
                    "downloads. Data still missing follows `ifeval_unverifiable` / `ifbench_unverifiable`",
                    lambda: NLTK_DOWNLOADS),
    TaskSettingSpec("answers_from", "path", None,
                    "a saved run made with `--log_samples` (its `--output_path` folder, or one "
                    "`samples_<task>_<date>.jsonl`), or a Hub dataset repo of such runs, "
                    "`hf://datasets/<org>/<repo>[@<revision>][/<folder>]`, or an inspect_ai log or lighteval "
                    "details file ([Other harnesses](saved-runs.md#other-harnesses-logs)): pass 1 takes each document's saved "
                    "response instead of generating it; a response cut at a stop string is completed, not regenerated "
                    "([Add the probe to a run you already have](saved-runs.md))"),
    TaskSettingSpec("user_temperature", "temperature", None,
                    "the user turn's temperature, when it differs from the answer's (the run's `--gen_kwargs`): "
                    "e.g. pass 2 sampled at 0.7 on greedy answers read with `answers_from`. The paper uses one "
                    "temperature for both passes, so a run with it set is not comparable with the paper's cells"),
    TaskSettingSpec("prompt_mismatch", "choice", PROMPT_MISMATCH_CHOICES[0],
                    "`answers_from`: the saved prompt is pass 1, character for character; the probe's own "
                    "rendering of the document is a check. `record` keeps its outcome in each record "
                    "(`answer_source.prompt_check`); `refuse` stops the run at a saved prompt the probe would "
                    "not have written (other few-shot examples, another task version)", lambda: PROMPT_MISMATCH_CHOICES),
    TaskSettingSpec("answers_from_settings", "object", None,
                    "`answers_from` an inspect_ai or lighteval log: what the saved run used that its log does not "
                    "record, stated (never guessed): `temperature`, `max_gen_toks`, `until`, and `model` (as "
                    "`--model_args pretrained=` names it, for a log that names a served alias); a stated value "
                    "the log contradicts is refused ([Other harnesses](saved-runs.md#other-harnesses-logs))",
                    lambda: ANSWERS_FROM_SETTINGS_KEYS),
)
KEYS = tuple(spec.key for spec in SPECS)
_DEFAULT = {spec.key: spec.default for spec in SPECS}


@dataclass(frozen=True)
class TaskSettings:
    """A task's probe settings, validated once. Fields and defaults: :data:`SPECS`."""

    pass2_context: str = _DEFAULT["pass2_context"]
    truncate_scope: str = _DEFAULT["truncate_scope"]
    role_switch: str = _DEFAULT["role_switch"]
    user_max_gen_toks: int = _DEFAULT["user_max_gen_toks"]
    user_samples: int = _DEFAULT["user_samples"]
    pass_at_k: tuple[int, ...] = _DEFAULT["pass_at_k"]
    question_seed: int = _DEFAULT["question_seed"]
    question_pool: str = _DEFAULT["question_pool"]
    overlong: str = _DEFAULT["overlong"]
    metrics: str = _DEFAULT["metrics"]
    nltk_download: str = _DEFAULT["nltk_download"]
    answers_from: str | None = _DEFAULT["answers_from"]
    user_temperature: float | None = _DEFAULT["user_temperature"]
    prompt_mismatch: str = _DEFAULT["prompt_mismatch"]
    answers_from_settings: dict[str, Any] | None = _DEFAULT["answers_from_settings"]

    @classmethod
    def from_metadata(cls, task: str, meta: Mapping[str, Any]) -> TaskSettings:
        """Validate every task setting of ``meta`` (absent keys take their defaults).

        Args:
            task: the task name, for the messages.
            meta: the task's metadata (YAML ``metadata`` and ``--metadata``).
        """
        values = {spec.key: _coerce(task, spec, meta.get(spec.key, spec.default)) for spec in SPECS}
        n, ks = _parse_samples(values["user_samples"], meta.get("pass_at_k"), task)
        values["user_samples"], values["pass_at_k"] = n, ks
        return cls(**values)


def _coerce(task: str, spec: TaskSettingSpec, raw: Any) -> Any:
    where = f"{task}: --metadata {spec.key}={raw!r}"
    if spec.kind == "choice":
        allowed = spec.choices() if spec.choices else ()
        if str(raw) not in allowed:
            raise TaskSettingError(f"{where} is not one of {', '.join(allowed)}")
        return str(raw)
    if spec.kind == "ks":
        return raw  # checked against user_samples by _parse_samples
    if spec.kind == "path":
        return str(raw).strip() or None if raw is not None else None
    if spec.kind == "temperature":
        return _temperature(where, raw)
    if spec.kind == "object":
        if raw is None:
            return None
        allowed = spec.choices() if spec.choices else ()
        if not isinstance(raw, dict) or not set(raw) <= set(allowed):
            raise TaskSettingError(f"{where} must be a JSON object with keys among {', '.join(allowed)}, e.g. "
                                   f"'{{\"{spec.key}\": {{\"temperature\": 0}}}}'")
        return dict(raw)
    try:
        if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
            raise ValueError
        value = int(str(raw).strip()) if not isinstance(raw, (int, float)) else int(raw)
    except ValueError:
        raise TaskSettingError(f"{where} must be a whole number") from None
    if spec.kind == "positive" and value < 1:
        raise TaskSettingError(f"{where} must be at least 1")
    return value


def _temperature(where: str, raw: Any) -> float | None:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    try:
        if isinstance(raw, bool):
            raise ValueError
        value = float(str(raw).strip())
    except ValueError:
        raise TaskSettingError(f"{where} must be a number (a temperature, e.g. 0.7)") from None
    if not 0 <= value < float("inf"):
        raise TaskSettingError(f"{where} must be a temperature of 0 or more")
    return value


def _parse_samples(user_samples: object, pass_at_k: object, task: str) -> tuple[int, tuple[int, ...]]:
    """Validate ``user_samples`` and ``pass_at_k`` (``"1,4"``, ``[1, 4]`` or ``4``).

    Args:
        user_samples: the setting (n >= 1).
        pass_at_k: the k values asked for, each 1 <= k <= n (None: none besides k = n).
        task: the task, for the message.
    """
    try:
        n = int(str(user_samples))
    except ValueError:
        raise TaskSettingError(f"{task}: --metadata user_samples={user_samples!r} must be a whole number of user turns") from None
    if n < 1:
        raise TaskSettingError(f"{task}: --metadata user_samples={n} must be at least 1")
    if pass_at_k is None or pass_at_k == "":
        return n, ()
    raw = pass_at_k.split(",") if isinstance(pass_at_k, str) else pass_at_k if isinstance(pass_at_k, list) else [pass_at_k]
    try:
        ks = tuple(sorted({int(str(k).strip()) for k in raw}))
    except ValueError:
        raise TaskSettingError(f"{task}: --metadata pass_at_k={pass_at_k!r} must list whole numbers, e.g. \"1,4\"") from None
    if not ks or ks[0] < 1 or ks[-1] > n:
        raise TaskSettingError(
            f"{task}: --metadata pass_at_k={pass_at_k!r}: every k must be between 1 and user_samples={n}; "
            f"raise user_samples to draw that many user turns per answer"
        )
    return n, ks


def settings_table_markdown() -> str:
    """The task settings as a Markdown table (docs/settings.md's copy must equal it)."""
    lines = ["| key | default | meaning |", "|---|---|---|"]
    for spec in SPECS:
        default = "unset" if spec.default in ((), None) else f"`{spec.default}`"
        lines.append(f"| `{spec.key}` | {default} | {spec.doc} |")
    return "\n".join(lines) + "\n"

