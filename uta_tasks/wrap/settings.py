"""The settings of a wrapped lm-eval task, read once from its metadata.

=============================  =========  ================================================
key                            default    meaning
=============================  =========  ================================================
``uta_num_fewshot``            0          few-shot examples in q, drawn by the task's own
                                          sampler from its own few-shot split
``uta_fewshot_as_multiturn``   true       each example its own user/assistant turn (as
                                          lm-eval's ``--fewshot_as_multiturn``); false: one
                                          user turn holding all of them
``uta_fewshot_seed``           1234       seed of the few-shot draw (lm-eval's default)
``uta_primary``                (see doc)  the ``metric_filter`` whose value 1 means "answered
                                          correctly"; default: the first metric under the
                                          task's ``flexible-extract`` filter, else under its
                                          last filter
``<task>_data_files``          (none)     a local file (or list of files) in the task's own
                                          schema holding the documents to evaluate; without
                                          it the task loads its own data set as lm-eval does
``uta_include_path``           (none)     the task folders (absolute paths) the source task
                                          was found in, as given to ``wrap --include_path``
                                          or ``uta-eval --include_path``; the wrapped task
                                          finds its source there when lm-eval builds it
=============================  =========  ================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

INCLUDE_PATH_KEY = "uta_include_path"
KEYS = ("uta_num_fewshot", "uta_fewshot_as_multiturn", "uta_fewshot_seed", "uta_primary", INCLUDE_PATH_KEY)
DEFAULT_FEWSHOT_SEED = 1234


class WrapError(ValueError):
    """A task cannot be wrapped, or a wrapped task is misconfigured; the message names the
    task, the reason and, where there is one, the fix."""


def data_files_key(source: str) -> str:
    """The metadata key pointing a wrapped task at local files (``gsm8k_data_files``)."""
    return f"{source}_data_files"


def _bool(task: str, key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("true", "1", "yes"):
        return True
    if str(value).lower() in ("false", "0", "no"):
        return False
    raise WrapError(f"{task}: {key}={value!r} is not true or false")


def _count(task: str, key: str, value: Any) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = -1
    if number < 0 or isinstance(value, bool):
        raise WrapError(f"{task}: {key}={value!r} must be a whole number >= 0")
    return number


@dataclass(frozen=True)
class WrapSettings:
    """How a wrapped task builds q and reads its data.

    Attributes:
        num_fewshot: few-shot examples in q (0: zero-shot).
        fewshot_as_multiturn: examples as separate turns.
        fewshot_seed: seed of the few-shot draw.
        primary: the accuracy metric that decides "correct" (None: the default rule).
        data_files: local data files (None: the task's own data set).
        hub_timeout: ``data_hub_timeout`` for a URL in ``data_files``.
        include_path: the task folders the source task is looked up in besides lm-eval's own.
    """

    num_fewshot: int = 0
    fewshot_as_multiturn: bool = True
    fewshot_seed: int = DEFAULT_FEWSHOT_SEED
    primary: str | None = None
    data_files: str | tuple[str, ...] | None = None
    hub_timeout: float = 10.0
    include_path: tuple[str, ...] = ()

    def recorded(self) -> dict[str, Any]:
        """The prompt settings as metadata keys, written into every wrapped task's YAML so the
        results file records the choice (``--metadata`` still overrides them)."""
        return {"uta_num_fewshot": self.num_fewshot, "uta_fewshot_as_multiturn": self.fewshot_as_multiturn,
                "uta_fewshot_seed": self.fewshot_seed}

    @classmethod
    def from_metadata(cls, task: str, source: str, meta: dict[str, Any]) -> WrapSettings:
        """Validate a wrapped task's metadata.

        Args:
            task: the wrapped task's name (for messages).
            source: the source task.
            meta: the task metadata.
        """
        files = meta.get(data_files_key(source))
        folders = meta.get(INCLUDE_PATH_KEY) or ()
        return cls(
            num_fewshot=_count(task, "uta_num_fewshot", meta.get("uta_num_fewshot", 0)),
            fewshot_as_multiturn=_bool(task, "uta_fewshot_as_multiturn", meta.get("uta_fewshot_as_multiturn", True)),
            fewshot_seed=_count(task, "uta_fewshot_seed", meta.get("uta_fewshot_seed", DEFAULT_FEWSHOT_SEED)),
            primary=meta.get("uta_primary") or None,
            data_files=None if not files else (str(files) if isinstance(files, str) else tuple(map(str, files))),
            hub_timeout=float(meta.get("data_hub_timeout") or 10.0),
            include_path=(str(folders),) if isinstance(folders, str) else tuple(map(str, folders)),
        )
