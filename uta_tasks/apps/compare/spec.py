"""The comparison's input: a YAML file naming the models and what every one of them runs.

::

    tasks: uta                       # --tasks of every model (a list or a comma-separated string)
    limit: 50                        # --limit (optional)
    gen_kwargs: max_gen_toks=1024    # --gen_kwargs (optional)
    metadata: {judge_model: gpt-5.4-mini}   # --metadata of every model: task, data and judge settings
    judge_via: live                  # live (each model's run judges) or batch (the Batch API, all at once)
    eval_args: [--batch_size, "16"]  # more lm-eval flags for every model (optional)
    models:
      - name: qwen-9b                # the page's name for it (default: the model_args' model)
        model: vllm                  # --model, the backend
        model_args: pretrained=Qwen/Qwen3.5-9B,tensor_parallel_size=1
      - name: published
        model: hf
        model_args: pretrained=org/model
        answers_from: hf://datasets/open-llm-leaderboard/org__model-details/org__model
        eval_args: [--device, cpu]   # more lm-eval flags for this model (optional)

``answers_from`` is a run folder or a Hub details address, as the task setting of the same
name takes it (docs/saved-runs.md); a relative folder is read from the YAML file's folder.
Every key is checked: an unknown one (a typo) is refused, naming it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uta_tasks.schema.compare import JUDGE_LIVE, JUDGE_VIA, JudgeVia

_TOP_KEYS = frozenset({"tasks", "limit", "gen_kwargs", "metadata", "judge_via", "eval_args", "models"})
_MODEL_KEYS = frozenset({"name", "model", "model_args", "answers_from", "eval_args"})
# Flags the comparison sets itself for every model: given in eval_args they would contradict it.
_OWN_FLAGS = frozenset({"--model", "--model_args", "--tasks", "--limit", "--gen_kwargs", "--metadata", "--output_path",
                        "--log_samples", "--predict_only", "-o", "-s"})
_SLUG_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class CompareError(ValueError):
    """The comparison cannot go on; the message names the file, the model or the setting, and the fix."""


@dataclass(frozen=True)
class ModelEntry:
    """One model of the comparison.

    Attributes:
        name: its name on the page and in ``leaderboard.json``.
        backend: lm-eval's ``--model`` (``hf``, ``vllm``, ``local-completions``...).
        model_args: lm-eval's ``--model_args``.
        answers_from: where its answers already are (a run folder, resolved, or a Hub address), or None.
        eval_args: more lm-eval flags for its run.
    """

    name: str
    backend: str
    model_args: str
    answers_from: str | None = None
    eval_args: tuple[str, ...] = ()

    @property
    def slug(self) -> str:
        """Its folder name under ``runs/``, ``reports/`` and ``logs/``: the name with every run of
        characters outside ``A-Z a-z 0-9 . _ -`` replaced by ``-``."""
        return _SLUG_UNSAFE.sub("-", self.name).strip("-.") or "model"


@dataclass(frozen=True)
class Comparison:
    """What every model runs, and the models.

    Attributes:
        source: the YAML file.
        tasks: ``--tasks``.
        models: the models, in the file's order.
        limit: ``--limit``, or None.
        gen_kwargs: ``--gen_kwargs`` ("" for none).
        metadata: ``--metadata`` shared by every model (``answers_from`` is per model).
        judge_via: ``live`` or ``batch``.
        eval_args: more lm-eval flags for every model.
    """

    source: Path
    tasks: tuple[str, ...]
    models: tuple[ModelEntry, ...]
    limit: float | None = None
    gen_kwargs: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    judge_via: JudgeVia = JUDGE_LIVE
    eval_args: tuple[str, ...] = ()

    def metadata_for(self, model: ModelEntry) -> dict[str, Any]:
        """The ``--metadata`` of one model's run: the shared settings, with its ``answers_from``.

        Args:
            model: one of :attr:`models`.
        """
        return {**self.metadata, **({"answers_from": model.answers_from} if model.answers_from else {})}


def _where(source: Path, what: str) -> str:
    return f"{source}: {what}"


def _words(value: Any, source: Path, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
        raise CompareError(_where(source, f"{what} must be a list of command-line words, e.g. [--batch_size, \"16\"]"))
    words = tuple(str(v) for v in value)
    taken = sorted({w.split("=", 1)[0] for w in words} & _OWN_FLAGS)
    if taken:
        raise CompareError(_where(source, f"{what} holds {', '.join(taken)}, which the comparison sets itself; "
                                          "give it at the top of the file (tasks, limit, gen_kwargs, metadata)"))
    return words


def _answers_from(value: Any, source: Path, name: str) -> str | None:
    from uta_tasks.saved_answers.hub import is_hub

    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise CompareError(_where(source, f"model {name!r}: answers_from must be a run folder or a Hub address"))
    if is_hub(value):
        return value
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else (source.parent / path).resolve())


def _model(raw: Any, source: Path, index: int) -> ModelEntry:
    if not isinstance(raw, dict):
        raise CompareError(_where(source, f"models[{index}] must be a mapping with model and model_args"))
    unknown = sorted(set(map(str, raw)) - _MODEL_KEYS)
    if unknown:
        raise CompareError(_where(source, f"models[{index}] has unknown key(s) {', '.join(unknown)}; "
                                          f"a model takes {', '.join(sorted(_MODEL_KEYS))}"))
    backend, model_args = raw.get("model"), raw.get("model_args")
    if not isinstance(backend, str) or not backend or not isinstance(model_args, str) or not model_args:
        raise CompareError(_where(source, f"models[{index}] needs model (the backend, as --model names it) and "
                                          "model_args (as --model_args names the model)"))
    name = raw.get("name")
    if name is None:
        from uta_tasks.runs import model_name

        name = model_name({"config": {"model_args": model_args}})
    if not isinstance(name, str) or not name.strip():
        raise CompareError(_where(source, f"models[{index}]: name must be a non-empty text"))
    return ModelEntry(name.strip(), backend, model_args, _answers_from(raw.get("answers_from"), source, name),
                      _words(raw.get("eval_args"), source, f"models[{index}].eval_args"))


def parse_comparison(data: Any, source: Path) -> Comparison:
    """The comparison described by a parsed YAML document.

    Args:
        data: the document.
        source: the file it was read from (relative folders are read from its folder).

    Raises:
        CompareError: a key is unknown, missing or of the wrong type, or two models share a name.
    """
    if not isinstance(data, dict):
        raise CompareError(_where(source, "must be a mapping with tasks and models"))
    unknown = sorted(set(map(str, data)) - _TOP_KEYS)
    if unknown:
        raise CompareError(_where(source, f"unknown key(s) {', '.join(unknown)}; the file takes "
                                          f"{', '.join(sorted(_TOP_KEYS))}"))
    tasks = data.get("tasks")
    if isinstance(tasks, str):
        tasks = [t.strip() for t in tasks.split(",")]
    if not isinstance(tasks, list) or not tasks or not all(isinstance(t, str) and t for t in tasks):
        raise CompareError(_where(source, "tasks must name the tasks or groups every model runs, e.g. tasks: uta"))
    models = data.get("models")
    if not isinstance(models, list) or not models:
        raise CompareError(_where(source, "models must list at least one model"))
    entries = tuple(_model(raw, source, i) for i, raw in enumerate(models))
    seen: dict[str, str] = {}
    for entry in entries:
        if entry.slug in seen:
            raise CompareError(_where(source, f"models {seen[entry.slug]!r} and {entry.name!r} would share the "
                                              f"folder {entry.slug!r}; give one of them another name"))
        seen[entry.slug] = entry.name
    limit = data.get("limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, float)) or limit <= 0):
        raise CompareError(_where(source, f"limit must be a positive number, got {limit!r}"))
    gen_kwargs = data.get("gen_kwargs") or ""
    if isinstance(gen_kwargs, dict):
        gen_kwargs = ",".join(f"{k}={v}" for k, v in gen_kwargs.items())
    if not isinstance(gen_kwargs, str):
        raise CompareError(_where(source, "gen_kwargs must be text as --gen_kwargs takes it, e.g. max_gen_toks=1024"))
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise CompareError(_where(source, "metadata must be a mapping of settings, e.g. {judge_model: gpt-5.4-mini}"))
    if "answers_from" in metadata:
        raise CompareError(_where(source, "answers_from belongs to a model (each model's answers are its own)"))
    judge_via = data.get("judge_via", JUDGE_LIVE)
    if judge_via not in JUDGE_VIA:
        raise CompareError(_where(source, f"judge_via must be one of {', '.join(JUDGE_VIA)}, got {judge_via!r}"))
    return Comparison(source, tuple(tasks), entries, None if limit is None else float(limit), gen_kwargs,
                      {str(k): v for k, v in metadata.items()}, judge_via,
                      _words(data.get("eval_args"), source, "eval_args"))


def load_comparison(path: str | Path) -> Comparison:
    """Read and check a comparison's YAML file.

    Args:
        path: the file.

    Raises:
        CompareError: it cannot be read, is not YAML, or does not describe a comparison.
    """
    import yaml

    source = Path(path).resolve()
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise CompareError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise CompareError(f"{path}: not valid YAML ({exc})") from None
    return parse_comparison(data, source)
